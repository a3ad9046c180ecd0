import StratusEngine
import StratusModel

/// SQL expressions for the values a query compares, and the values bound against them.
struct FieldPaths {
    let dialect: any SQLDialect

    /// The comparable value of an operand: a field's stored value (a reference compares by record
    /// name), or a system column.
    func expression(_ operand: QueryOperand) -> String {
        switch operand {
        case .field(let name, let type):
            switch type.scalar {
            case .reference: return dialect.jsonExtract([name, "value", "recordName"], as: .text)
            case .int64, .timestamp: return dialect.jsonExtract([name, "value"], as: .integer)
            case .double: return dialect.jsonExtract([name, "value"], as: .real)
            case .string, .bytes, .location, .asset: return dialect.jsonExtract([name, "value"], as: .text)
            }
        case .system(let system):
            switch system {
            // Unqualified: the same text is used in index DDL, where SQLite refuses `table.column`.
            case .recordName: return "record_name"
            case .createdTimestamp: return "created_ms"
            case .modifiedTimestamp: return "modified_ms"
            case .createdUserRecordName: return "created_by"
            case .modifiedUserRecordName: return "modified_by"
            case .share, .parent: return "NULL"
            }
        }
    }

    func latitude(_ field: String) -> String { dialect.jsonExtract([field, "value", "latitude"], as: .real) }
    func longitude(_ field: String) -> String { dialect.jsonExtract([field, "value", "longitude"], as: .real) }

    /// The value a filter binds for a field value, in the form the expression yields.
    static func bindValue(_ value: FieldValue) -> SQLValue {
        switch value {
        case .string(let text): return .text(text)
        case .int64(let number), .timestamp(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .reference(let reference): return .text(reference.recordName)
        case .bytes(let data): return .text(data.base64EncodedString())
        case .location, .asset, .list: return .null
        }
    }

    /// List side-index values are stored as text whatever the element type. Numbers compare as
    /// numbers, so -0.0 is written as 0.0.
    static func listValue(_ value: FieldValue) -> SQLValue {
        switch bindValue(value) {
        case .integer(let number): return .text(String(number))
        case .real(let number): return .text(String(number == 0 ? 0.0 : number))
        case let other: return other
        }
    }

    /// The distinct side-index values of some elements, told apart byte for byte as the database
    /// compares them (a Swift `Set` of strings would merge "é" with "e\u{301}").
    static func distinctListValues(_ elements: [FieldValue]) -> [SQLValue] {
        var seen = Set<[UInt8]>()
        var distinct: [SQLValue] = []
        for element in elements {
            let value = listValue(element)
            // Every value is text, or NULL for elements no list filter can match.
            let key: [UInt8] = if case .text(let text) = value { [1] + Array(text.utf8) } else { [0] }
            if seen.insert(key).inserted { distinct.append(value) }
        }
        return distinct
    }
}

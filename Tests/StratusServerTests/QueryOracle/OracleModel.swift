import Foundation
import StratusModel

/// A scalar value as the oracle compares it. Strings are kept as UTF-8 bytes so equality and order
/// are byte-wise (Swift's `String ==` treats "é" and "e\u{301}" as equal; the server must not).
enum OracleScalar: Hashable {
    case string([UInt8])
    case int64(Int64)
    /// Numbers compare as numbers: -0.0 equals 0.0.
    case double(Double)
    case timestamp(Int64)
    case bytes([UInt8])
    case reference(String)
    case location(latitude: Double, longitude: Double)

    static func text(_ string: String) -> OracleScalar { .string(Array(string.utf8)) }

    /// The value as a request sends it under `"value"`.
    var json: JSONValue {
        switch self {
        case .string(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        case .int64(let number), .timestamp(let number): return .int(number)
        case .double(let number): return .double(number)
        case .bytes(let bytes): return .string(Data(bytes).base64EncodedString())
        case .reference(let name): return ["recordName": .string(name), "action": "NONE"]
        case .location(let latitude, let longitude): return ["latitude": .double(latitude), "longitude": .double(longitude)]
        }
    }

    /// Reads a response's `"value"` as a value of `type`; nil if it has another shape.
    static func decode(_ json: JSONValue, as type: FieldType) -> OracleScalar? {
        switch type {
        case .string: return json.stringValue.map(text)
        case .int64: return json.int64Value.map(OracleScalar.int64)
        case .double: return json.doubleValue.map(OracleScalar.double)
        case .timestamp: return json.int64Value.map(OracleScalar.timestamp)
        case .bytes: return json.stringValue.flatMap { Data(base64Encoded: $0) }.map { .bytes(Array($0)) }
        case .reference: return json["recordName"]?.stringValue.map(OracleScalar.reference)
        case .location:
            guard let latitude = json["latitude"]?.doubleValue, let longitude = json["longitude"]?.doubleValue else { return nil }
            return .location(latitude: latitude, longitude: longitude)
        case .asset: return nil
        }
    }

    /// Exactly the same value, bit for bit (a stored -0.0 must come back as -0.0).
    func isIdentical(to other: OracleScalar) -> Bool {
        if case .double(let a) = self, case .double(let b) = other { return a.bitPattern == b.bitPattern }
        return self == other
    }

    var description: String {
        switch self {
        case .string(let bytes): return String(reflecting: String(decoding: bytes, as: UTF8.self))
        case .int64(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .timestamp(let number): return "t\(number)"
        case .bytes(let bytes): return "0x" + bytes.map { String(format: "%02x", $0) }.joined()
        case .reference(let name): return "ref(\(name))"
        case .location(let latitude, let longitude): return "(\(latitude), \(longitude))"
        }
    }
}

/// The order of two values of one ordered type: strings and references by bytes, numbers by value.
func oracleCompare(_ a: OracleScalar, _ b: OracleScalar) -> Int {
    func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
    switch (a, b) {
    case (.string(let x), .string(let y)): return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
    case (.reference(let x), .reference(let y)): return oracleCompare(.text(x), .text(y))
    case (.int64(let x), .int64(let y)), (.timestamp(let x), .timestamp(let y)): return sign(x, y)
    case (.double(let x), .double(let y)): return sign(x, y)
    default: fatalError("the oracle compared \(a.description) with \(b.description)")
    }
}

/// One field of the record type the oracle queries.
struct OracleField: Hashable {
    let name: String
    let scalar: FieldType
    let isList: Bool

    var typeTag: String { FieldTypeDescriptor(scalar, isList: isList).responseTag }
    var listTag: String { FieldTypeDescriptor(scalar, isList: true).responseTag }

    /// Every field type that a filter or sort can use, once as a scalar and once as a list.
    static let all: [OracleField] = [
        OracleField(name: "s", scalar: .string, isList: false),
        OracleField(name: "i", scalar: .int64, isList: false),
        OracleField(name: "d", scalar: .double, isList: false),
        OracleField(name: "t", scalar: .timestamp, isList: false),
        OracleField(name: "r", scalar: .reference, isList: false),
        OracleField(name: "b", scalar: .bytes, isList: false),
        OracleField(name: "l", scalar: .location, isList: false),
        OracleField(name: "sl", scalar: .string, isList: true),
        OracleField(name: "il", scalar: .int64, isList: true),
        OracleField(name: "dl", scalar: .double, isList: true),
        OracleField(name: "tl", scalar: .timestamp, isList: true),
        OracleField(name: "rl", scalar: .reference, isList: true),
        OracleField(name: "bl", scalar: .bytes, isList: true),
        OracleField(name: "ll", scalar: .location, isList: true),
    ]

    static let recordType = "Sample"

    /// The schema: every field QUERYABLE, ordered scalars SORTABLE too, `s` SEARCHABLE, and the system fields the
    /// queries use. Queries run in production, so a query that needed an undeclared index fails.
    static var schemaText: String {
        var items = [
            "\"___recordID\" REFERENCE QUERYABLE SORTABLE",
            "\"___createTime\" TIMESTAMP QUERYABLE SORTABLE",
            "\"___modTime\" TIMESTAMP QUERYABLE SORTABLE",
        ]
        for field in all {
            let sortable = !field.isList && (field.scalar.isOrdered || field.scalar == .location)
            let searchable = field.name == "s"
            items.append(
                "\(field.name) \(FieldTypeDescriptor(field.scalar, isList: field.isList)) QUERYABLE" + (sortable ? " SORTABLE" : "")
                    + (searchable ? " SEARCHABLE" : ""))
        }
        return "DEFINE SCHEMA\n    RECORD TYPE \(recordType) (\n        " + items.joined(separator: ",\n        ") + "\n    );\n"
    }
}

/// A field's value in a record.
enum OracleFieldValue: Hashable {
    case scalar(OracleScalar)
    case list([OracleScalar])
}

/// A record as the oracle knows it; the timestamps come from the server's save response.
struct OracleRecord {
    var name: String
    var fields: [String: OracleFieldValue]
    var created: Int64 = 0
    var modified: Int64 = 0

    func fieldsJSON() -> JSONValue {
        var members: [String: JSONValue] = [:]
        for field in OracleField.all {
            switch fields[field.name] {
            case .scalar(let value): members[field.name] = ["value": value.json, "type": .string(field.typeTag)]
            case .list(let values): members[field.name] = ["value": .array(values.map(\.json)), "type": .string(field.typeTag)]
            case nil: break
            }
        }
        return .object(members)
    }
}

import Foundation
import StratusModel

/// Evaluates a query plan's filters against one record in memory, with the store's semantics:
/// a missing field matches no comparison (as SQL NULL does), filters are ANDed.
/// Subscriptions use it to decide whether a saved or deleted record matches their query.
struct RecordPredicate: Sendable {
    let plan: QueryPlan

    func matches(_ record: RecordRow) -> Bool {
        guard record.recordType == plan.recordType else { return false }
        if let zone = plan.zoneName, zone != record.zoneName { return false }
        return plan.filters.allSatisfy { matches($0, record) }
    }

    func matches(_ filter: QueryFilter, _ record: RecordRow) -> Bool {
        switch filter {
        case .compare(let operand, let comparison, let expected):
            guard let actual = value(operand, record) else { return false }
            return compare(actual, comparison, expected)
        case .oneOf(let operand, let values, let negated):
            guard let actual = value(operand, record) else { return false }
            let found = values.contains { compare(actual, .equals, $0) }
            return found != negated
        case .beginsWith(let operand, let prefix, let negated):
            guard let text = value(operand, record).flatMap(RecordPredicate.text) else { return false }
            return RecordPredicate.begins(text, with: prefix) != negated
        case .near(let operand, let centre, let metres):
            guard case .location(let point)? = value(operand, record) else { return false }
            return RecordPredicate.distance(point, centre) <= metres
        case .tokens(let field, let tokens, let matchAll):
            let words = Set(RecordPredicate.elements(record.fields[field]).compactMap(RecordPredicate.text).flatMap(TextTokenizer.tokens))
            return matchAll ? tokens.allSatisfy(words.contains) : tokens.contains(where: words.contains)
        case .listContains(let field, let expected, let negated):
            let found = RecordPredicate.elements(record.fields[field]).contains { compare($0, .equals, expected) }
            return found != negated
        case .listContainsAny(let field, let expected, let negated):
            let elements = RecordPredicate.elements(record.fields[field])
            let found = expected.contains { wanted in elements.contains { compare($0, .equals, wanted) } }
            return found != negated
        case .listContainsAll(let field, let expected, let negated):
            let elements = RecordPredicate.elements(record.fields[field])
            let found = expected.allSatisfy { wanted in elements.contains { compare($0, .equals, wanted) } }
            return found != negated
        case .listMemberBeginsWith(let field, let prefix, let negated):
            let found = RecordPredicate.elements(record.fields[field]).contains { RecordPredicate.text($0).map { RecordPredicate.begins($0, with: prefix) } == true }
            return found != negated
        case .anyOf(let members): return members.contains { matches($0, record) }
        case .allOf(let members): return members.allSatisfy { matches($0, record) }
        case .not(let member): return !matches(member, record)
        }
    }

    func value(_ operand: QueryOperand, _ record: RecordRow) -> FieldValue? {
        switch operand {
        case .field(let name, _): return record.fields[name]
        case .system(let system):
            switch system {
            case .recordName: return .string(record.recordName)
            case .createdTimestamp: return .timestamp(record.created.timestamp)
            case .modifiedTimestamp: return .timestamp(record.modified.timestamp)
            case .createdUserRecordName: return .reference(ReferenceValue(recordName: record.created.userRecordName))
            case .modifiedUserRecordName: return .reference(ReferenceValue(recordName: record.modified.userRecordName))
            case .share, .parent: return record.fields[system.rawValue]
            }
        }
    }

    func compare(_ actual: FieldValue, _ comparison: Comparison, _ expected: FieldValue) -> Bool {
        guard let left = SortKey(actual), let right = SortKey(expected) else {
            switch comparison {
            case .equals: return actual == expected
            case .notEquals: return actual != expected
            default: return false
            }
        }
        guard let order = left.order(right) else { return false }
        switch comparison {
        case .equals: return order == 0
        case .notEquals: return order != 0
        case .lessThan: return order < 0
        case .lessThanOrEquals: return order <= 0
        case .greaterThan: return order > 0
        case .greaterThanOrEquals: return order >= 0
        }
    }

    /// A comparable form of a scalar value.
    enum SortKey {
        case number(Double)
        case integer(Int64)
        case text(String)

        init?(_ value: FieldValue) {
            switch value {
            case .string(let text): self = .text(text)
            case .int64(let number), .timestamp(let number): self = .integer(number)
            case .double(let number): self = .number(number)
            case .reference(let reference): self = .text(reference.recordName)
            case .bytes(let data): self = .text(data.base64EncodedString())
            default: return nil
            }
        }

        /// -1, 0, 1; `nil` when the kinds cannot be compared.
        func order(_ other: SortKey) -> Int? {
            switch (self, other) {
            case (.integer(let a), .integer(let b)): return a < b ? -1 : a == b ? 0 : 1
            case (.text(let a), .text(let b)): return a < b ? -1 : a == b ? 0 : 1
            case (.integer(let a), .number(let b)): return Double(a) < b ? -1 : Double(a) == b ? 0 : 1
            case (.number(let a), .integer(let b)): return a < Double(b) ? -1 : a == Double(b) ? 0 : 1
            case (.number(let a), .number(let b)): return a < b ? -1 : a == b ? 0 : 1
            default: return nil
            }
        }
    }

    /// BEGINS_WITH as queries mean it: byte for byte, as the database compares (Swift's
    /// `hasPrefix` would compare by character, so "é" written as e + accent would not begin with "e").
    static func begins(_ text: String, with prefix: String) -> Bool { text.utf8.starts(with: prefix.utf8) }

    static func text(_ value: FieldValue) -> String? {
        switch value {
        case .string(let text): return text
        case .reference(let reference): return reference.recordName
        default: return nil
        }
    }

    static func elements(_ value: FieldValue?) -> [FieldValue] {
        switch value {
        case .list(_, let elements)?: return elements
        case let scalar?: return [scalar]
        case nil: return []
        }
    }

    /// Great-circle distance in metres.
    static func distance(_ a: LocationValue, _ b: LocationValue) -> Double {
        let radius = 6_371_000.0
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1, dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }
}

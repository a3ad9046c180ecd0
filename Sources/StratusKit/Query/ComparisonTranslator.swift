import Foundation
import StratusModel

/// Translates one comparison (possibly under NOT) into CKWS filters.
struct ComparisonTranslator {
    private let comparison: PredicateComparison
    private let negated: Bool

    init(_ comparison: PredicateComparison, negated: Bool) {
        self.comparison = comparison
        self.negated = negated
    }

    private var context: String { negated ? "NOT \(comparison.text)" : comparison.text }

    private func fail(_ message: String) -> CKError {
        PredicateError.invalid("\(message) (in '\(context)')")
    }

    /// The pseudo-field that `self CONTAINS 'text'` and `allTokens TOKENMATCHES[cdl] 'text'` search:
    /// every SEARCHABLE string field of the record.
    static let allTokensField = "allTokens"

    func filters() throws(CKError) -> [JSONValue] {
        let c = comparison
        switch c.quantifier {
        case .all: throw fail("ALL is not supported by CloudKit queries")
        case .noneOf: throw fail("NONE is not supported by CloudKit queries")
        default: break
        }
        switch c.op {
        case .endsWith: throw fail("ENDSWITH is not supported by CloudKit queries; only BEGINSWITH is")
        case .like: throw fail("LIKE is not supported by CloudKit queries")
        case .matches: throw fail("MATCHES is not supported by CloudKit queries")
        default: break
        }
        if let tokens = try tokenSearch() { return [tokens] }
        if let near = try distanceFilter() { return [near] }
        if !c.modifiers.isEmpty { throw fail("the modifier [\(c.modifiers)] is not supported with \(c.op.rawValue)") }

        switch (c.left, c.right) {
        case (.key(let key), let other):
            return try keyOnLeft(key, other)
        case (let other, .key(let key)):
            return try keyOnRight(key, other)
        case (.selfObject, _), (_, .selfObject):
            throw fail("SELF can only be used as 'self CONTAINS <text>'")
        default:
            throw fail("a comparison needs a field name on one side")
        }
    }

    // MARK: - Key on the left: `key op value`

    private func keyOnLeft(_ key: String, _ rhs: PredicateExpression) throws(CKError) -> [JSONValue] {
        let c = comparison
        if c.quantifier == .any {
            switch c.op {
            case .equal: return [filter(negated ? "NOT_LIST_CONTAINS" : "LIST_CONTAINS", key, try scalar(rhs))]
            case .beginsWith:
                return [filter(negated ? "NOT_LIST_MEMBER_BEGINS_WITH" : "LIST_MEMBER_BEGINS_WITH", key, try string(rhs))]
            case .in: return [filter(negated ? "NOT_LIST_CONTAINS_ANY" : "LIST_CONTAINS_ANY", key, try list(rhs))]
            default: throw fail("ANY can only be used with =, IN or BEGINSWITH")
            }
        }
        switch c.op {
        case .equal: return [filter(negated ? "NOT_EQUALS" : "EQUALS", key, try scalar(rhs))]
        case .notEqual: return [filter(negated ? "EQUALS" : "NOT_EQUALS", key, try scalar(rhs))]
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return [filter(Self.ordering(c.op, negated: negated), key, try scalar(rhs))]
        case .between:
            if negated { throw fail("NOT cannot be applied to BETWEEN") }
            guard case .list(_, let bounds) = try list(rhs), bounds.count == 2 else {
                throw fail("BETWEEN needs a list of exactly two values")
            }
            return [filter("GREATER_THAN_OR_EQUALS", key, bounds[0]), filter("LESS_THAN_OR_EQUALS", key, bounds[1])]
        case .in: return [filter(negated ? "NOT_IN" : "IN", key, try list(rhs))]
        case .contains: return [filter(negated ? "NOT_LIST_CONTAINS" : "LIST_CONTAINS", key, try scalar(rhs))]
        case .beginsWith: return [filter(negated ? "NOT_BEGINS_WITH" : "BEGINS_WITH", key, try string(rhs))]
        default: throw fail("\(c.op.rawValue) is not supported here")
        }
    }

    // MARK: - Key on the right: `value op key`

    private func keyOnRight(_ key: String, _ lhs: PredicateExpression) throws(CKError) -> [JSONValue] {
        let c = comparison
        if c.quantifier == .any {
            // `ANY {'red', 'green'} = favoriteColor` means favoriteColor IN {…}.
            guard c.op == .equal else { throw fail("ANY on a list of values can only be used with =") }
            return [filter(negated ? "NOT_IN" : "IN", key, try list(lhs))]
        }
        switch c.op {
        case .in: return [filter(negated ? "NOT_LIST_CONTAINS" : "LIST_CONTAINS", key, try scalar(lhs))]
        case .equal: return [filter(negated ? "NOT_EQUALS" : "EQUALS", key, try scalar(lhs))]
        case .notEqual: return [filter(negated ? "EQUALS" : "NOT_EQUALS", key, try scalar(lhs))]
        case .less: return [filter(Self.ordering(.greater, negated: negated), key, try scalar(lhs))]
        case .lessOrEqual: return [filter(Self.ordering(.greaterOrEqual, negated: negated), key, try scalar(lhs))]
        case .greater: return [filter(Self.ordering(.less, negated: negated), key, try scalar(lhs))]
        case .greaterOrEqual: return [filter(Self.ordering(.lessOrEqual, negated: negated), key, try scalar(lhs))]
        default: throw fail("\(c.op.rawValue) needs the field name on its left")
        }
    }

    private static func ordering(_ op: PredicateComparison.Operator, negated: Bool) -> String {
        switch (op, negated) {
        case (.less, false), (.greaterOrEqual, true): return "LESS_THAN"
        case (.lessOrEqual, false), (.greater, true): return "LESS_THAN_OR_EQUALS"
        case (.greater, false), (.lessOrEqual, true): return "GREATER_THAN"
        default: return "GREATER_THAN_OR_EQUALS"
        }
    }

    // MARK: - Token search and distance

    private func tokenSearch() throws(CKError) -> JSONValue? {
        let c = comparison
        let isSelfContains = { if case .selfObject = c.left, c.op == .contains { return true } else { return false } }()
        let isTokenMatch = c.op == .tokenMatches
        guard isSelfContains || isTokenMatch else { return nil }
        if negated { throw fail("NOT cannot be applied to a token search") }
        if isTokenMatch {
            guard case .key(let key) = c.left, key == Self.allTokensField else {
                throw fail("TOKENMATCHES can only be used as 'allTokens TOKENMATCHES[cdl] <text>'")
            }
        }
        guard case .string(let text) = try scalar(c.right) else { throw fail("a token search needs a string") }
        return filter("CONTAINS_ALL_TOKENS", Self.allTokensField, .string(text))
    }

    private func distanceFilter() throws(CKError) -> JSONValue? {
        let c = comparison
        let function: PredicateExpression, limit: PredicateExpression, op: PredicateComparison.Operator
        if case .function(let name, _) = c.left, name.hasPrefix("distanceToLocation") {
            (function, limit, op) = (c.left, c.right, c.op)
        } else if case .function(let name, _) = c.right, name.hasPrefix("distanceToLocation") {
            let mirrored: [PredicateComparison.Operator: PredicateComparison.Operator] = [.greater: .less, .greaterOrEqual: .lessOrEqual]
            (function, limit, op) = (c.right, c.left, mirrored[c.op] ?? .equal)
        } else {
            return nil
        }
        if negated { throw fail("NOT cannot be applied to distanceToLocation:fromLocation:") }
        guard op == .less || op == .lessOrEqual else {
            throw fail("distanceToLocation:fromLocation: can only be compared with < or <=")
        }
        guard case .function(let name, let args) = function, name == "distanceToLocation:fromLocation:", args.count == 2,
            case .key(let key) = args[0]
        else {
            throw fail("write distanceToLocation:fromLocation:(<field>, <CLLocation>)")
        }
        guard case .location(let centre) = try scalar(args[1]) else {
            throw fail("distanceToLocation:fromLocation: needs a CLLocation")
        }
        let kilometres: Double
        switch try scalar(limit) {
        case .double(let d): kilometres = d
        case .int64(let i): kilometres = Double(i)
        default: throw fail("the distance must be a number of kilometres")
        }
        var members = filter("NEAR", key, .location(centre)).objectValue ?? [:]
        members["distance"] = .double(kilometres * 1000)
        return .object(members)
    }

    // MARK: - Values

    private func scalar(_ expression: PredicateExpression) throws(CKError) -> FieldValue {
        let value = try fieldValue(expression)
        if case .list = value { throw fail("expected a single value, got a list") }
        return value
    }

    private func string(_ expression: PredicateExpression) throws(CKError) -> FieldValue {
        let value = try scalar(expression)
        guard case .string = value else { throw fail("BEGINSWITH needs a string") }
        return value
    }

    private func list(_ expression: PredicateExpression) throws(CKError) -> FieldValue {
        let value = try fieldValue(expression)
        guard case .list = value else { throw fail("expected a list of values") }
        return value
    }

    private func fieldValue(_ expression: PredicateExpression) throws(CKError) -> FieldValue {
        switch expression {
        case .value(let v): return try FilterValue.fieldValue(v, context: context)
        case .list(let items):
            var elements: [FieldValue] = []
            for item in items { elements.append(try scalar(item)) }
            return .list(elements.first?.typeDescriptor?.scalar, elements)
        case .function(let name, let args) where name.lowercased() == "now" && args.isEmpty:
            return .timestamp(Date().millisecondsSince1970)
        case .function(let name, _): throw fail("the function '\(name)' is not supported")
        case .null: throw fail("CloudKit queries cannot compare with nil")
        case .selfObject: throw fail("SELF cannot be used as a value")
        case .key(let key): throw fail("comparing two fields ('\(key)') is not supported")
        }
    }

    private func filter(_ comparator: String, _ key: String, _ value: FieldValue) -> JSONValue {
        let (member, name) = SystemKey.fieldMember(for: key)
        return .object(["comparator": .string(comparator), member: name, "fieldValue": value.fieldJSON()])
    }
}

import Foundation
import StratusModel

/// CKWS filters written back as a predicate format: `format` with a `%@` for each value in
/// `arguments` (what the predicate parser reads again), and `display`, the same predicate with the
/// values written out, as `predicateFormat` reads on Apple platforms.
///
/// Archived queries and fetched or restored query subscriptions are rebuilt from this, so their
/// `predicate` filters exactly as the original did.
struct FilterFormat {
    var format: String
    var arguments: [FieldValue]
    var display: String

    /// Writes `filters` (ANDed, as `filterBy` holds them); no filters is `TRUEPREDICATE`.
    init(filters: [JSONValue]) throws(CKError) {
        var formats: [String] = [], displays: [String] = [], arguments: [FieldValue] = []
        for filter in filters {
            let term = try Term(filter)
            formats.append(term.format)
            displays.append(term.display)
            arguments.append(contentsOf: term.arguments)
        }
        self.format = formats.isEmpty ? "TRUEPREDICATE" : formats.joined(separator: " AND ")
        self.display = displays.isEmpty ? "TRUEPREDICATE" : displays.joined(separator: " AND ")
        self.arguments = arguments
    }

    /// `FALSEPREDICATE`: a query that matches nothing.
    init(matchingNothing: ()) {
        format = "FALSEPREDICATE"
        display = "FALSEPREDICATE"
        arguments = []
    }

    init(format: String, arguments: [FieldValue], display: String) {
        self.format = format
        self.arguments = arguments
        self.display = display
    }

    /// The predicate, parsed again from `format` when a query runs.
    func predicate() -> NSPredicate {
        let values = arguments.map(Self.argument)
        #if canImport(Darwin)
        return NSPredicate(format: format, argumentArray: values)
        #else
        return RestoredPredicate(format: format, arguments: values, display: display)
        #endif
    }

    /// A filter value as the Swift value an app would pass for `%@`.
    static func argument(_ value: FieldValue) -> Any {
        switch value {
        case .string(let s): return s
        case .int64(let i): return i
        case .double(let d): return d
        case .timestamp(let t): return Date(milliseconds: t)
        case .bytes(let d): return d
        case .reference(let r): return CKRecord.Reference(wire: r, holderZone: .default)
        case .location(let l): return CLLocation(wire: l)
        case .asset: return Data()
        case .list(_, let items): return items.map(argument)
        }
    }
}

/// One filter as a predicate term.
private struct Term {
    var format: String
    var display: String
    var arguments: [FieldValue]

    init(_ filter: JSONValue) throws(CKError) {
        if let group = try Self.group(filter) {
            self = group
            return
        }
        guard let comparator = filter["comparator"]?.stringValue else {
            throw CKError(.invalidArguments, "a query filter has no comparator")
        }
        let key = try Self.key(of: filter)
        guard let valueJSON = filter["fieldValue"],
            case .value(let value)? = try? FieldValue.decode(fieldJSON: valueJSON, path: "fieldValue", expected: nil)
        else {
            throw CKError(.invalidArguments, "the query filter on '\(key)' has no readable fieldValue")
        }
        if comparator == "NEAR" {
            let metres = filter["distance"]?.doubleValue ?? 0
            let kilometres = FieldValue.double(metres / 1000)
            format = "distanceToLocation:fromLocation:(\(key), %@) < %@"
            display = "distanceToLocation:fromLocation:(\(key), \(Self.literal(value))) < \(Self.literal(kilometres))"
            arguments = [value, kilometres]
            return
        }
        guard let (negated, template) = Self.templates[comparator] else {
            throw CKError(.invalidArguments, "the query comparator '\(comparator)' cannot be written as a predicate")
        }
        let prefix = negated ? "NOT " : ""
        format = prefix + template.replacingOccurrences(of: "$KEY", with: key).replacingOccurrences(of: "$VALUE", with: "%@")
        display =
            prefix
            + template.replacingOccurrences(of: "$KEY", with: key)
            .replacingOccurrences(of: "$VALUE", with: Self.literal(value))
        arguments = [value]
    }

    private init(format: String, display: String, arguments: [FieldValue]) {
        self.format = format
        self.display = display
        self.arguments = arguments
    }

    /// A Stratus filter group (`anyOf`, `allOf`, `not`) as a parenthesized term; `nil` for a filter.
    private static func group(_ filter: JSONValue) throws(CKError) -> Term? {
        if filter["comparator"] != nil { return nil }
        if let inner = filter["not"] {
            let term = try Term(inner)
            return Term(format: "NOT (\(term.format))", display: "NOT (\(term.display))", arguments: term.arguments)
        }
        let joiner: String
        let members: [JSONValue]
        if let any = filter["anyOf"]?.arrayValue {
            (joiner, members) = (" OR ", any)
        } else if let all = filter["allOf"]?.arrayValue {
            (joiner, members) = (" AND ", all)
        } else {
            return nil
        }
        var terms: [Term] = []
        for member in members { terms.append(try Term(member)) }
        return Term(
            format: "(" + terms.map(\.format).joined(separator: joiner) + ")",
            display: "(" + terms.map(\.display).joined(separator: joiner) + ")",
            arguments: terms.flatMap(\.arguments))
    }

    /// Comparator → (written under NOT, the term). The NOT_ forms CKWS has for `!=` and the
    /// orderings are their own operators; the others are the positive form under NOT.
    private static let templates: [String: (Bool, String)] = [
        "EQUALS": (false, "$KEY == $VALUE"),
        "NOT_EQUALS": (false, "$KEY != $VALUE"),
        "LESS_THAN": (false, "$KEY < $VALUE"),
        "LESS_THAN_OR_EQUALS": (false, "$KEY <= $VALUE"),
        "GREATER_THAN": (false, "$KEY > $VALUE"),
        "GREATER_THAN_OR_EQUALS": (false, "$KEY >= $VALUE"),
        "IN": (false, "$KEY IN $VALUE"),
        "NOT_IN": (true, "$KEY IN $VALUE"),
        "LIST_CONTAINS": (false, "$KEY CONTAINS $VALUE"),
        "NOT_LIST_CONTAINS": (true, "$KEY CONTAINS $VALUE"),
        "LIST_CONTAINS_ANY": (false, "ANY $KEY IN $VALUE"),
        "NOT_LIST_CONTAINS_ANY": (true, "ANY $KEY IN $VALUE"),
        "BEGINS_WITH": (false, "$KEY BEGINSWITH $VALUE"),
        "NOT_BEGINS_WITH": (true, "$KEY BEGINSWITH $VALUE"),
        "LIST_MEMBER_BEGINS_WITH": (false, "ANY $KEY BEGINSWITH $VALUE"),
        "NOT_LIST_MEMBER_BEGINS_WITH": (true, "ANY $KEY BEGINSWITH $VALUE"),
        "CONTAINS_ALL_TOKENS": (false, "SELF CONTAINS $VALUE"),
    ]

    /// The key apps write for the filter's field (`creationDate` for `createdTimestamp`, …).
    private static func key(of filter: JSONValue) throws(CKError) -> String {
        if let name = filter["fieldName"]?.stringValue { return name }
        guard let system = filter["systemFieldName"]?.stringValue.flatMap(SystemFieldName.init(rawValue:)) else {
            throw CKError(.invalidArguments, "a query filter names no field")
        }
        return SystemKey.key(for: system)
    }

    /// A value written as a predicate format shows it.
    static func literal(_ value: FieldValue) -> String {
        switch value {
        case .string(let s): return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .int64(let i): return String(i)
        case .double(let d): return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .timestamp(let t):
            return "CAST(\(Date(milliseconds: t).timeIntervalSinceReferenceDate), \"NSDate\")"
        case .bytes(let d): return "<\(d.map { String(format: "%02x", $0) }.joined())>"
        case .reference(let r):
            let zone = r.zoneID.map { ", zone=\($0.zoneName)" } ?? ""
            return "<CKReference: recordName=\(r.recordName)\(zone)>"
        case .location(let l): return "<CLLocation: \(l.latitude),\(l.longitude)>"
        case .asset: return "<CKAsset>"
        case .list(_, let items): return "{" + items.map(literal).joined(separator: ", ") + "}"
        }
    }
}

#if !canImport(Darwin)
/// A predicate rebuilt from its format: evaluated with the parser's probe like any format
/// predicate, and reading back its format as `predicateFormat` does on Apple platforms.
final class RestoredPredicate: NSPredicate {
    private let display: String

    init(format: String, arguments: [Any], display: String) {
        self.display = display
        super.init(block: PredicateSourceProbe.block(format: format, arguments: arguments))
    }

    required init?(coder: NSCoder) { nil }

    override var predicateFormat: String { display }
    override var description: String { display }
}
#endif

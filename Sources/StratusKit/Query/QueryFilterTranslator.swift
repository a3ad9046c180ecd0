import Foundation
import StratusModel

/// What a predicate becomes on the wire: a list of ANDed CKWS filters, or "matches nothing"
/// (`FALSEPREDICATE`, answered without asking the server).
enum QueryFilters {
    case filters([JSONValue])
    case none
}

/// Turns a parsed predicate into CKWS `filterBy` dictionaries (docs/protocol.md §5), refusing what
/// CloudKit refuses with `CKError.invalidArguments` and a message naming the part.
struct QueryFilterTranslator {
    static func translate(_ node: PredicateNode) throws(CKError) -> QueryFilters {
        var filters: [JSONValue] = []
        var matchesNothing = false
        try collect(node, into: &filters, matchesNothing: &matchesNothing)
        return matchesNothing ? .none : .filters(filters)
    }

    fileprivate static func collect(_ node: PredicateNode, into filters: inout [JSONValue], matchesNothing: inout Bool) throws(CKError) {
        switch node {
        case .constant(let value):
            if !value { matchesNothing = true }
        case .and(let terms):
            for term in terms { try collect(term, into: &filters, matchesNothing: &matchesNothing) }
        case .or(let terms):
            // Stratus's filter groups (docs/protocol.md §5); CloudKit itself refuses OR.
            var members: [JSONValue] = []
            for term in terms {
                switch try member(term) {
                case .always: return
                case .never: continue
                case .filter(let filter): members.append(filter)
                }
            }
            if members.isEmpty { matchesNothing = true } else { filters.append(members.count == 1 ? members[0] : ["anyOf": .array(members)]) }
        case .not(let inner):
            switch inner {
            case .not(let twice): try collect(twice, into: &filters, matchesNothing: &matchesNothing)
            case .constant(let value): if value { matchesNothing = true }
            case .comparison(let comparison): filters.append(contentsOf: try ComparisonTranslator(comparison, negated: true).filters())
            case .and, .or:
                // A Stratus `not` group: it matches every record its member does not.
                switch try member(inner) {
                case .always: matchesNothing = true
                case .never: break
                case .filter(let filter): filters.append(["not": filter])
                }
            }
        case .comparison(let comparison):
            filters.append(contentsOf: try ComparisonTranslator(comparison, negated: false).filters())
        }
    }
}

extension QueryFilterTranslator {
    /// A predicate as one member of a filter group.
    enum Member {
        case always, never
        case filter(JSONValue)
    }

    static func member(_ node: PredicateNode) throws(CKError) -> Member {
        var filters: [JSONValue] = []
        var matchesNothing = false
        try collect(node, into: &filters, matchesNothing: &matchesNothing)
        if matchesNothing { return .never }
        switch filters.count {
        case 0: return .always
        case 1: return .filter(filters[0])
        default: return .filter(["allOf": .array(filters)])
        }
    }
}

/// Maps the system keys apps write (`creationDate`, `___createTime`, …) to CKWS `systemFieldName`s.
enum SystemKey {
    static func systemFieldName(for key: String) -> SystemFieldName? {
        switch key {
        case "creationDate", "___createTime": return .createdTimestamp
        case "modificationDate", "___modTime": return .modifiedTimestamp
        case "recordID", "___recordID", "___recordId", "recordName": return .recordName
        case "creatorUserRecordID", "___createdBy": return .createdUserRecordName
        case "lastModifiedUserRecordID", "___modifiedBy": return .modifiedUserRecordName
        case "___parent", "parent": return .parent
        case "___share": return .share
        default: return nil
        }
    }

    /// The key apps write for a system field (`creationDate` for `createdTimestamp`).
    static func key(for system: SystemFieldName) -> String {
        switch system {
        case .recordName: return "recordID"
        case .createdTimestamp: return "creationDate"
        case .modifiedTimestamp: return "modificationDate"
        case .createdUserRecordName: return "creatorUserRecordID"
        case .modifiedUserRecordName: return "lastModifiedUserRecordID"
        case .parent: return "parent"
        case .share: return "___share"
        }
    }

    /// `fieldName` or `systemFieldName` for a key.
    static func fieldMember(for key: String) -> (String, JSONValue) {
        if let system = systemFieldName(for: key) { return ("systemFieldName", .string(system.rawValue)) }
        return ("fieldName", .string(key))
    }
}

import Foundation
import StratusModel

// See StratusKit.swift for why these are extensions of Foundation's class.

/// The root of the key paths key-based sort descriptors store: reading `self[sortKey: k]`
/// gives back `k`, so the key can be recovered from the descriptor's `keyPath`.
struct SortKeyCarrier {
    subscript(sortKey key: String) -> String { key }
}

#if !canImport(Darwin)
extension NSSortDescriptor {
    /// Creates a sort descriptor on a record field or a system field (`creationDate`).
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \SortKeyCarrier[sortKey: key ?? ""], ascending: ascending)
    }

    /// The key the descriptor sorts on, for descriptors made with `init(key:ascending:)`.
    public var key: String? {
        guard let path = keyPath as? KeyPath<SortKeyCarrier, String> else { return nil }
        return SortKeyCarrier()[keyPath: path]
    }
}
#endif

extension NSSortDescriptor {
    /// The CKWS sort dictionary (docs/protocol.md §5).
    func querySort() throws(CKError) -> JSONValue {
        guard let key, !key.isEmpty else {
            throw PredicateError.invalid("CloudKit sort descriptors need a key; use NSSortDescriptor(key:ascending:)")
        }
        let (member, name) = SystemKey.fieldMember(for: key)
        var members: [String: JSONValue] = [member: name, "ascending": .bool(ascending)]
        if let location = self as? CKLocationSortDescriptor {
            members["relativeLocation"] = FieldValue.location(location.relativeLocation.wire).fieldJSON()
        }
        return .object(members)
    }
}

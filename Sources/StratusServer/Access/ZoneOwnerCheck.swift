import StratusEngine
import StratusModel

/// Private databases belong to their owner alone. Requests address zones by `zoneID`, whose
/// `ownerRecordName` may name a user; in a private database anything other than the caller (or
/// CloudKit's `__defaultOwner__` placeholder) is refused before the engine runs, with the same
/// answer whether or not that user or zone exists.
enum ZoneOwnerCheck {
    static let defaultOwner = "__defaultOwner__"

    static func check(_ body: JSONValue, scope: RequestScope) throws {
        // The shared database's zones name their owners (ShareAccess decides what is allowed).
        guard scope.store.scope == .private, let caller = scope.caller.userRecordName else { return }
        if firstForeignOwner(in: body, caller: caller, depth: 0) != nil {
            throw CloudKitError(
                .accessDenied, "a zoneID names another user as owner; the \(scope.store.scope.rawValue) database of a user is theirs alone (omit ownerRecordName or use \(defaultOwner))")
        }
    }

    static func firstForeignOwner(in value: JSONValue, caller: String, depth: Int) -> String? {
        guard depth < 16 else { return nil }
        switch value {
        case .object(let members):
            if let zone = members["zoneID"]?.objectValue, let owner = zone["ownerRecordName"]?.stringValue,
                owner != caller, owner != defaultOwner, !owner.isEmpty
            {
                return owner
            }
            for member in members.values {
                if let found = firstForeignOwner(in: member, caller: caller, depth: depth + 1) { return found }
            }
            return nil
        case .array(let elements):
            for element in elements {
                if let found = firstForeignOwner(in: element, caller: caller, depth: depth + 1) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}

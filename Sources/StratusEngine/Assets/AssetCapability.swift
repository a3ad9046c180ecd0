import StratusModel

/// Where an asset upload may go: the store, zone, record and field an upload URL or a receipt
/// was issued for. A receipt from `assets/rereference` names only the store (`recordName` and
/// `fieldName` nil): it may be attached to any record of that store.
public struct AssetSlot: Sendable, Hashable {
    public var store: StoreKey
    public var zoneName: String
    public var recordName: String?
    public var fieldName: String?
}

/// The three signed capabilities of the asset flow (docs/protocol.md §8), sealed with the server's
/// secret through `SignedEnvelope`. Each payload names its kind, so one kind can never be
/// replayed as another, and carries an expiry in milliseconds.
///
/// - upload URL token: the slot, valid 15 minutes by default;
/// - receipt: the slot plus the checksum and size of the finished upload;
/// - download token: checksum and size only (bytes are content-addressed; who may read them was
///   decided when the record was fetched).
enum AssetCapability {
    static let uploadKind = "upload"
    static let receiptKind = "receipt"
    static let downloadKind = "download"

    static func slotMembers(_ slot: AssetSlot) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "c": .string(slot.store.container), "e": .string(slot.store.environment.rawValue),
            "d": .string(slot.store.scope.rawValue), "o": .string(slot.store.owner), "z": .string(slot.zoneName),
        ]
        if let recordName = slot.recordName { members["r"] = .string(recordName) }
        if let fieldName = slot.fieldName { members["f"] = .string(fieldName) }
        return members
    }

    static func slot(from payload: JSONValue) -> AssetSlot? {
        guard let container = payload["c"]?.stringValue,
            let environment = payload["e"]?.stringValue.flatMap(DatabaseEnvironment.init(rawValue:)),
            let scope = payload["d"]?.stringValue.flatMap(DatabaseScope.init(rawValue:)),
            let owner = payload["o"]?.stringValue, let zone = payload["z"]?.stringValue
        else { return nil }
        return AssetSlot(
            store: StoreKey(container: container, environment: environment, scope: scope, owner: owner),
            zoneName: zone, recordName: payload["r"]?.stringValue, fieldName: payload["f"]?.stringValue)
    }

    static func seal(kind: String, members: [String: JSONValue], expires: Int64, envelope: SignedEnvelope) -> String {
        var members = members
        members["k"] = .string(kind)
        members["x"] = .int(expires)
        return envelope.seal(.object(members))
    }

    /// The payload of a capability of `kind`; `nil` if forged, of another kind, or malformed.
    /// Expiry is checked by the caller, which knows what to tell the client.
    static func open(_ text: String, kind: String, envelope: SignedEnvelope) -> (payload: JSONValue, expires: Int64)? {
        guard let payload = envelope.open(text), payload["k"]?.stringValue == kind, let expires = payload["x"]?.int64Value
        else { return nil }
        return (payload, expires)
    }
}

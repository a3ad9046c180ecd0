import Foundation
import StratusModel

/// What kind of record change fired a notification (`fo` of a query frame: 1, 2, 3).
public enum RecordChangeKind: String, Sendable, Hashable, CaseIterable {
    case create, update, delete

    /// Native `CKQueryNotification.Reason`.
    public var reason: Int64 {
        switch self {
        case .create: return 1
        case .update: return 2
        case .delete: return 3
        }
    }
}

/// A subscription dictionary (docs/protocol.md §7.1), validated. `database` is a Stratus extension
/// (CKWS documents only `query` and `zone`).
struct Subscription: Sendable, Hashable {
    enum Kind: String, Sendable { case query, zone, database }

    var subscriptionID: String
    var kind: Kind
    var query: JSONValue?
    /// The zone a zone subscription watches, or the zone a query subscription is scoped to.
    var zoneName: String?
    var firesOn: Set<RecordChangeKind>
    var firesOnce: Bool
    /// Query subscriptions without a zone: all zones (true) or the default zone only.
    var zoneWide: Bool
    /// Stored as given, unknown keys included.
    var notificationInfo: JSONValue?

    /// Reads a subscription dictionary. `fallbackID` names a subscription sent without an ID.
    init(json: JSONValue, path: String, fallbackID: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        subscriptionID = try reader.optionalString("subscriptionID") ?? fallbackID
        if subscriptionID.isEmpty || subscriptionID.utf8.count > 255 {
            throw WireError(path: reader.child("subscriptionID"), problem: "must be 1 to 255 bytes")
        }
        let typeName = try reader.string("subscriptionType")
        guard let kind = Kind(rawValue: typeName) else {
            throw WireError(path: reader.child("subscriptionType"), problem: "'\(typeName)' is not a subscription type; use query, zone or database")
        }
        self.kind = kind
        let zoneID = try reader["zoneID"].flatMap { value throws(WireError) -> ZoneID? in
            value.isNull ? nil : try ZoneID(json: value, path: reader.child("zoneID"))
        }
        zoneName = zoneID?.zoneName
        notificationInfo = reader["notificationInfo"].flatMap { $0.isNull ? nil : $0 }
        if let info = notificationInfo, info.objectValue == nil {
            throw WireError(path: reader.child("notificationInfo"), problem: "expected an object, got \(info.kindName)")
        }
        query = nil
        firesOn = []
        firesOnce = false
        zoneWide = false
        switch kind {
        case .query:
            guard let query = reader["query"], query.objectValue != nil else {
                throw WireError(path: reader.child("query"), problem: "is required for a query subscription")
            }
            self.query = query
            let events = try reader.optionalStringArray("firesOn") ?? []
            for (position, event) in events.enumerated() {
                guard let change = RecordChangeKind(rawValue: event) else {
                    throw WireError(path: "\(reader.child("firesOn"))[\(position)]", problem: "'\(event)' is not create, update or delete")
                }
                firesOn.insert(change)
            }
            if firesOn.isEmpty {
                throw WireError(path: reader.child("firesOn"), problem: "is required: at least one of create, update, delete")
            }
            firesOnce = try reader.bool("firesOnce", default: false)
            zoneWide = zoneName == nil ? try reader.bool("zoneWide", default: true) : false
        case .zone:
            if zoneName == nil { throw WireError(path: reader.child("zoneID"), problem: "is required for a zone subscription") }
        case .database:
            zoneName = nil
        }
    }

    /// The zone a query subscription plans against (`nil`: every zone).
    var queryZoneName: String? { zoneName ?? (zoneWide ? nil : ZoneID.defaultZoneName) }

    /// The subscription dictionary as responses show it.
    func json(store: StoreKey) -> JSONValue {
        var members: [String: JSONValue] = [
            "subscriptionID": .string(subscriptionID),
            "subscriptionType": .string(kind.rawValue),
        ]
        if let zoneName { members["zoneID"] = ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)).json }
        if let notificationInfo { members["notificationInfo"] = notificationInfo }
        if kind == .query {
            members["query"] = query ?? .null
            members["firesOn"] = .array(RecordChangeKind.allCases.filter(firesOn.contains).map { .string($0.rawValue) })
            members["firesOnce"] = .bool(firesOnce)
            members["zoneWide"] = .bool(zoneWide)
        }
        return .object(members)
    }
}

/// `{"subscriptionID", "serverErrorCode", "reason", "uuid"}`: one failed subscription item.
func subscriptionErrorJSON(subscriptionID: String?, _ error: CloudKitError) -> JSONValue {
    var members: [String: JSONValue] = [
        "serverErrorCode": .string(error.code.rawValue),
        "reason": .string(error.reason),
        "uuid": .string(UUID.random().uuidString.lowercased()),
    ]
    if let subscriptionID { members["subscriptionID"] = .string(subscriptionID) }
    return .object(members)
}

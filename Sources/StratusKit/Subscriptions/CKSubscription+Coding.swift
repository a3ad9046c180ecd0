import Foundation
import StratusModel

// Subscriptions archive as their CKWS dictionary (the form the server stores), so an archived
// subscription restores exactly what a fetched one would hold.

extension CKSubscription {
    static let archiveKey = "subscription"

    func encodeWire(with coder: NSCoder) {
        guard let json = try? wire() else { return }
        coder.encode(json.serializedData as NSData, forKey: Self.archiveKey)
    }

    static func archivedWire(_ coder: NSCoder) -> JSONValue? {
        guard let data = coder.decodeIfPresent(NSData.self, forKey: archiveKey) else { return nil }
        return try? JSONValue.parse(data as Data)
    }

    static func type(ofWire json: JSONValue) -> SubscriptionType {
        switch json["subscriptionType"]?.stringValue {
        case "query": return .query
        case "zone": return .recordZone
        default: return .database
        }
    }

    static func zoneID(ofWire json: JSONValue) -> CKRecordZone.ID? {
        (try? json["zoneID"].map { try ZoneID(json: $0, path: "zoneID") }).flatMap { $0 }.map { CKRecordZone.ID(wire: $0) }
    }
}

extension CKQuerySubscription {
    /// The predicate of a fetched or archived subscription, rebuilt from its CKWS query's filters.
    static func predicate(ofWireQuery query: JSONValue?) -> NSPredicate {
        let filters = query?["filterBy"]?.arrayValue ?? []
        return (try? FilterFormat(filters: filters))?.predicate() ?? NSPredicate(value: true)
    }
}

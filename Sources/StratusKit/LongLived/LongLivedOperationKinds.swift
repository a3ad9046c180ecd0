import Foundation
import StratusModel

// The database operations beyond record saves and fetches that can be long-lived, as Apple's
// can: zone and subscription changes and fetches, queries, and database and zone change
// fetches. Their arguments are kept as secure-coding archives (zones, subscriptions, queries,
// cursors, change tokens), so a restored operation has the same objects the app gave.

/// Secure-coding archives inside a long-lived operation's JSON document (base64 strings).
enum LongLivedArchive {
    static func json(_ object: (any NSObject & NSSecureCoding)?) -> JSONValue {
        guard let object, let data = try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true) else {
            return .null
        }
        return .string(data.base64EncodedString())
    }

    static func object<T: NSObject & NSSecureCoding>(_ json: JSONValue?, as type: T.Type) -> T? {
        guard let text = json?.stringValue, let data = Data(base64Encoded: text) else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data)
    }

    static func zoneIDJSON(_ id: CKRecordZone.ID) -> JSONValue {
        .object(["zoneName": .string(id.zoneName), "ownerName": .string(id.ownerName)])
    }

    static func zoneID(_ json: JSONValue) -> CKRecordZone.ID? {
        guard let name = json["zoneName"]?.stringValue else { return nil }
        return CKRecordZone.ID(zoneName: name, ownerName: json["ownerName"]?.stringValue ?? CKCurrentUserDefaultName)
    }

    static func strings(_ values: [String]?) -> JSONValue { values.map { .array($0.map { .string($0) }) } ?? .null }
    static func strings(_ json: JSONValue?) -> [String]? { json?.arrayValue?.compactMap(\.stringValue) }
}

extension CKModifyRecordZonesOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object([
            "kind": "modifyRecordZones",
            "recordZonesToSave": .array((recordZonesToSave ?? []).map { LongLivedArchive.json($0) }),
            "recordZoneIDsToDelete": .array((recordZoneIDsToDelete ?? []).map(LongLivedArchive.zoneIDJSON)),
        ])
    }

    convenience init?(longLivedDocument document: JSONValue) {
        var zones: [CKRecordZone] = []
        for item in document["recordZonesToSave"]?.arrayValue ?? [] {
            guard let zone = LongLivedArchive.object(item, as: CKRecordZone.self) else { return nil }
            zones.append(zone)
        }
        self.init(
            recordZonesToSave: zones,
            recordZoneIDsToDelete: (document["recordZoneIDsToDelete"]?.arrayValue ?? []).compactMap(LongLivedArchive.zoneID))
    }
}

extension CKFetchRecordZonesOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object(["kind": "fetchRecordZones", "recordZoneIDs": recordZoneIDs.map { .array($0.map(LongLivedArchive.zoneIDJSON)) } ?? .null])
    }

    /// `recordZoneIDs` absent: the fetch-all form.
    convenience init(longLivedDocument document: JSONValue) {
        self.init()
        recordZoneIDs = document["recordZoneIDs"]?.arrayValue?.compactMap(LongLivedArchive.zoneID)
    }
}

extension CKModifySubscriptionsOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object([
            "kind": "modifySubscriptions",
            "subscriptionsToSave": .array((subscriptionsToSave ?? []).map { LongLivedArchive.json($0) }),
            "subscriptionIDsToDelete": LongLivedArchive.strings(subscriptionIDsToDelete ?? []),
        ])
    }

    convenience init?(longLivedDocument document: JSONValue) {
        var subscriptions: [CKSubscription] = []
        for item in document["subscriptionsToSave"]?.arrayValue ?? [] {
            guard let text = item.stringValue, let data = Data(base64Encoded: text),
                let subscription =
                    (try? NSKeyedUnarchiver.unarchivedObject(
                        ofClasses: [CKQuerySubscription.self, CKRecordZoneSubscription.self, CKDatabaseSubscription.self], from: data)) as? CKSubscription
            else { return nil }
            subscriptions.append(subscription)
        }
        self.init(subscriptionsToSave: subscriptions, subscriptionIDsToDelete: LongLivedArchive.strings(document["subscriptionIDsToDelete"]) ?? [])
    }
}

extension CKFetchSubscriptionsOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object(["kind": "fetchSubscriptions", "subscriptionIDs": LongLivedArchive.strings(subscriptionIDs)])
    }

    /// `subscriptionIDs` absent: the fetch-all form.
    convenience init(longLivedDocument document: JSONValue) {
        self.init()
        subscriptionIDs = LongLivedArchive.strings(document["subscriptionIDs"])
    }
}

extension CKQueryOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object([
            "kind": "query", "query": LongLivedArchive.json(query), "cursor": LongLivedArchive.json(cursor),
            "desiredKeys": LongLivedArchive.strings(desiredKeys), "resultsLimit": .int(Int64(resultsLimit)),
            "zoneID": zoneID.map(LongLivedArchive.zoneIDJSON) ?? .null,
        ])
    }

    convenience init?(longLivedDocument document: JSONValue) {
        if let cursor = LongLivedArchive.object(document["cursor"], as: CKQueryOperation.Cursor.self) {
            self.init(cursor: cursor)
        } else if let query = LongLivedArchive.object(document["query"], as: CKQuery.self) {
            self.init(query: query)
        } else {
            return nil
        }
        desiredKeys = LongLivedArchive.strings(document["desiredKeys"])
        resultsLimit = document["resultsLimit"]?.int64Value.map { Int($0) } ?? CKQueryOperation.maximumResults
        zoneID = document["zoneID"].flatMap(LongLivedArchive.zoneID)
    }
}

extension CKFetchDatabaseChangesOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object([
            "kind": "fetchDatabaseChanges", "previousServerChangeToken": LongLivedArchive.json(previousServerChangeToken),
            "resultsLimit": .int(Int64(resultsLimit)), "fetchAllChanges": .bool(fetchAllChanges),
        ])
    }

    convenience init(longLivedDocument document: JSONValue) {
        self.init(previousServerChangeToken: LongLivedArchive.object(document["previousServerChangeToken"], as: CKServerChangeToken.self))
        resultsLimit = document["resultsLimit"]?.int64Value.map { Int($0) } ?? 0
        fetchAllChanges = document["fetchAllChanges"]?.boolValue ?? true
    }
}

extension CKFetchRecordZoneChangesOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        let zones: [JSONValue] = (recordZoneIDs ?? []).map { zoneID in
            var members = LongLivedArchive.zoneIDJSON(zoneID).objectValue ?? [:]
            if let configuration = configurationsByRecordZoneID?[zoneID] {
                members["previousServerChangeToken"] = LongLivedArchive.json(configuration.previousServerChangeToken)
                members["resultsLimit"] = .int(Int64(configuration.resultsLimit))
                members["desiredKeys"] = LongLivedArchive.strings(configuration.desiredKeys)
            }
            return .object(members)
        }
        return .object(["kind": "fetchRecordZoneChanges", "zones": .array(zones), "fetchAllChanges": .bool(fetchAllChanges)])
    }

    convenience init(longLivedDocument document: JSONValue) {
        var zoneIDs: [CKRecordZone.ID] = []
        var configurations: [CKRecordZone.ID: ZoneConfiguration] = [:]
        for zone in document["zones"]?.arrayValue ?? [] {
            guard let zoneID = LongLivedArchive.zoneID(zone) else { continue }
            zoneIDs.append(zoneID)
            guard zone["resultsLimit"] != nil else { continue }
            configurations[zoneID] = ZoneConfiguration(
                previousServerChangeToken: LongLivedArchive.object(zone["previousServerChangeToken"], as: CKServerChangeToken.self),
                resultsLimit: zone["resultsLimit"]?.int64Value.map { Int($0) }, desiredKeys: LongLivedArchive.strings(zone["desiredKeys"]))
        }
        self.init(recordZoneIDs: zoneIDs, configurationsByRecordZoneID: configurations)
        fetchAllChanges = document["fetchAllChanges"]?.boolValue ?? true
    }
}

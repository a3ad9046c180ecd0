import Foundation
import StratusModel

extension CKDatabase {
    /// What changed in the database's zones (for `databaseChanges(since:)`).
    public enum DatabaseChange: Sendable {
        /// A zone that was created or changed.
        public struct Modification: Sendable {
            public let zoneID: CKRecordZone.ID
        }
        /// A zone that was deleted.
        public struct Deletion: Sendable {
            /// Why the zone is gone: deleted, purged, or its encrypted data was reset.
            public enum Reason: Sendable, Hashable { case deleted, purged, encryptedDataReset }
            public let zoneID: CKRecordZone.ID
            public let reason: Reason
            @available(*, deprecated, message: "Use reason")
            public var purged: Bool { reason == .purged }
        }
    }

    /// What changed in one zone (for `recordZoneChanges(inZoneWith:since:)`).
    public enum RecordZoneChange: Sendable {
        /// A record that was created or changed, as it is now.
        public struct Modification: Sendable {
            public let record: CKRecord
        }
        /// A record that was deleted.
        public struct Deletion: Sendable {
            public let recordID: CKRecord.ID
            public let recordType: CKRecord.RecordType
        }
    }

    /// Zones changed and deleted since `changeToken` (`changes/database`); `nil` fetches all.
    public func databaseChanges(since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil) async throws
        -> (modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)
    {
        var body: [String: JSONValue] = [:]
        if let changeToken { body["syncToken"] = .string(changeToken.value) }
        if let resultsLimit, resultsLimit > 0 { body["resultsLimit"] = .int(Int64(resultsLimit)) }
        let answer = try await request("changes/database", body: .object(body))
        var modifications: [DatabaseChange.Modification] = []
        var deletions: [DatabaseChange.Deletion] = []
        for item in answer["zones"]?.arrayValue ?? [] {
            guard let zoneJSON = item["zoneID"], let wire = try? ZoneID(json: zoneJSON, path: "zoneID") else { continue }
            let zoneID = CKRecordZone.ID(wire: wire)
            if item["deleted"]?.boolValue == true {
                deletions.append(DatabaseChange.Deletion(zoneID: zoneID, reason: item["purged"]?.boolValue == true ? .purged : .deleted))
            } else {
                modifications.append(DatabaseChange.Modification(zoneID: zoneID))
            }
        }
        guard let token = answer["syncToken"]?.stringValue else {
            throw CKError(.serverResponseLost, "changes/database returned no syncToken")
        }
        return (modifications, deletions, CKServerChangeToken(value: token), answer["moreComing"]?.boolValue ?? false)
    }

    /// Records changed and deleted in a zone since `changeToken` (`changes/zone`); `nil` fetches
    /// every record.
    public func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int? = nil
    ) async throws
        -> (
            modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>], deletions: [RecordZoneChange.Deletion],
            changeToken: CKServerChangeToken, moreComing: Bool
        )
    {
        let page = try await zoneChangesPage(zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        var modifications: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>] = [:]
        for (id, result) in page.changed {
            modifications[id] = result.map { RecordZoneChange.Modification(record: $0) }
        }
        return (modifications, page.deleted, page.token, page.moreComing)
    }

    /// One page of a zone's changes, in the server's order.
    struct ZoneChangesPage {
        var changed: [(CKRecord.ID, Result<CKRecord, any Error>)]
        var deleted: [RecordZoneChange.Deletion]
        var token: CKServerChangeToken
        var moreComing: Bool
    }

    func zoneChangesPage(
        _ zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?, desiredKeys: [String]?,
        resultsLimit: Int?
    ) async throws(CKError) -> ZoneChangesPage {
        var zone: [String: JSONValue] = ["zoneID": zoneID.wire.json]
        if let changeToken { zone["syncToken"] = .string(changeToken.value) }
        if let desiredKeys { zone["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        if let resultsLimit, resultsLimit > 0 { zone["resultsLimit"] = .int(Int64(resultsLimit)) }
        let answer = try await request("changes/zone", body: .object(["zones": .array([.object(zone)])]))
        guard let item = answer["zones"]?.arrayValue?.first else {
            throw CKError(.serverResponseLost, "changes/zone returned no zone")
        }
        if let error = CKError(errorDictionary: item) { throw error }
        var changed: [(CKRecord.ID, Result<CKRecord, any Error>)] = []
        var deleted: [RecordZoneChange.Deletion] = []
        for record in item["records"]?.arrayValue ?? [] {
            guard let name = record["recordName"]?.stringValue else { continue }
            if record["deleted"]?.boolValue == true {
                deleted.append(
                    RecordZoneChange.Deletion(
                        recordID: CKRecord.ID(recordName: name, zoneID: zoneID),
                        recordType: record["recordType"]?.stringValue ?? ""))
            } else {
                let result = Self.recordResult(record, zone: zoneID)
                changed.append((CKRecord.ID(recordName: name, zoneID: zoneID), result))
            }
        }
        guard let token = item["syncToken"]?.stringValue else { throw CKError(.serverResponseLost, "changes/zone returned no syncToken") }
        return ZoneChangesPage(
            changed: await withDownloadedAssets(changed), deleted: deleted, token: CKServerChangeToken(value: token),
            moreComing: item["moreComing"]?.boolValue ?? false)
    }
}

import Foundation
import StratusModel

extension CKDatabase {
    /// Calls Stratus answers that CloudKit does not have, such as counting a query's records.
    /// They work only against a Stratus server.
    public var stratus: StratusDatabaseExtensions { StratusDatabaseExtensions(database: self) }
}

/// Stratus extensions of `CKDatabase`, reached through ``CKDatabase/stratus``. CloudKit has no
/// equivalent; each call names the Stratus route it uses (docs/protocol.md).
public struct StratusDatabaseExtensions: Sendable {
    let database: CKDatabase

    /// How many records `query` returns to this user over all its pages (`records/count`).
    /// Records the user may not read are not counted. Without a zone, every zone of the database
    /// is counted, as a query without a zone searches every zone.
    public func count(matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil) async throws -> Int {
        guard let wireQuery = try query.wireQuery() else { return 0 }
        if database.databaseScope == .shared, zoneID == nil {
            throw CKError(.invalidArguments, "counts in the shared database need a zone ID")
        }
        try database.refuseEncryptedFields(in: wireQuery, recordType: query.recordType)
        var body: [String: JSONValue] = ["query": wireQuery]
        if let zoneID { body["zoneID"] = zoneID.wire.json } else { body["zoneWide"] = true }
        let answer = try await database.request("records/count", body: .object(body))
        guard let count = answer["count"]?.int64Value else {
            throw CKError(.serverResponseLost, "records/count answered without a count")
        }
        return Int(count)
    }

    /// The completion-handler form of ``count(matching:inZoneWith:)``; the handler is called once.
    public func count(
        matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?,
        completionHandler: @escaping @Sendable (Result<Int, any Error>) -> Void
    ) {
        database.completeResult({ try await self.count(matching: query, inZoneWith: zoneID) }, completionHandler)
    }
}

import Foundation
import StratusModel

extension CKDatabase {
    /// One page of query results (`records/query`).
    struct QueryPage {
        var results: [(CKRecord.ID, Result<CKRecord, any Error>)]
        var cursor: CKQueryOperation.Cursor?
    }

    /// Runs a query, or continues one from a cursor, returning one page.
    func queryPage(
        _ query: CKQuery?, cursor: CKQueryOperation.Cursor?, zoneID: CKRecordZone.ID?,
        desiredKeys: [String]?, resultsLimit: Int
    ) async throws(CKError) -> QueryPage {
        let wireQuery: JSONValue
        let zone: CKRecordZone.ID?
        if let cursor {
            wireQuery = cursor.wireQuery
            zone = cursor.zoneID
        } else if let query {
            guard let built = try query.wireQuery() else { return QueryPage(results: [], cursor: nil) }
            wireQuery = built
            zone = zoneID
        } else {
            throw CKError(.invalidArguments, "a query operation needs a query or a cursor")
        }
        if databaseScope == .shared, zone == nil {
            throw CKError(.invalidArguments, "queries in the shared database need a zone ID")
        }
        try refuseEncryptedFields(in: wireQuery, recordType: wireQuery["recordType"]?.stringValue ?? "")
        var body: [String: JSONValue] = ["query": wireQuery]
        // As in CloudKit, a query without a zone searches every zone of the database.
        if let zone { body["zoneID"] = zone.wire.json } else { body["zoneWide"] = true }
        if resultsLimit > 0 { body["resultsLimit"] = .int(Int64(min(resultsLimit, maximumItemsPerRequest))) }
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        if let marker = cursor?.continuationMarker { body["continuationMarker"] = .string(marker) }
        let answer = try await request("records/query", body: .object(body))
        let recordZone = zone ?? .default
        let results: [(CKRecord.ID, Result<CKRecord, any Error>)] = (answer["records"]?.arrayValue ?? []).compactMap { item in
            let result = Self.recordResult(item, zone: recordZone)
            switch result {
            case .success(let record): return (record.recordID, result)
            case .failure:
                guard let name = item["recordName"]?.stringValue else { return nil }
                return (CKRecord.ID(recordName: name, zoneID: recordZone), result)
            }
        }
        let next = answer["continuationMarker"]?.stringValue.map {
            CKQueryOperation.Cursor(wireQuery: wireQuery, zoneID: zone, continuationMarker: $0)
        }
        return QueryPage(results: await withDownloadedAssets(results), cursor: next)
    }
}

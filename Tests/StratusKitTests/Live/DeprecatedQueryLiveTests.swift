import Foundation
import StratusKit
import Testing

/// The deprecated two-argument query call, as older apps still call it.
@Suite("Deprecated query call against a live server")
struct DeprecatedQueryLiveTests {
    @Test func twoArgumentRecordsMatchingReturnsTheMatchedRecords() async throws {
        let container = try await LiveServer.shared().makeContainer()
        let database = container.privateCloudDatabase
        let zone = CKRecordZone.ID(zoneName: "shelf")
        _ = try await database.save(CKRecordZone(zoneID: zone))
        let books = ["dune": 1965, "emma": 1815, "ubik": 1969].map { name, year in
            let record = CKRecord(recordType: "Book", recordID: CKRecord.ID(recordName: name, zoneID: zone))
            record["year"] = year
            return record
        }
        _ = try await database.modifyRecords(saving: books, deleting: [])
        let query = CKQuery(recordType: "Book", predicate: NSPredicate(format: "year > %d", 1900))

        let records: [CKRecord] = try await database.records(matching: query, inZoneWith: zone)
        #expect(Set(records.map(\.recordID.recordName)) == ["dune", "ubik"])
        #expect(records.allSatisfy { $0["year"] as? Int ?? 0 > 1900 })
        // The same two arguments without a type still mean today's call.
        let current = try await database.records(matching: query, inZoneWith: zone)
        #expect(current.matchResults.count == 2 && current.queryCursor == nil)
    }
}

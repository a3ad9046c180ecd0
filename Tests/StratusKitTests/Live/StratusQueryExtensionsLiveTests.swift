import Foundation
import StratusKit
import Testing

/// NSPredicate OR and NOT (Stratus filter groups) and `database.stratus.count`, against a live server.
@Suite("OR and NOT predicates and counts against a live server")
struct StratusQueryExtensionsLiveTests {
    func databaseWithFilms() async throws -> CKDatabase {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let films: [(String, Int, String)] = [
            ("alien", 1979, "horror"), ("heat", 1995, "crime"), ("thething", 1982, "horror"),
            ("theroad", 2009, "drama"), ("ronin", 1998, "crime"), ("untitled", 2011, ""),
        ]
        let records = films.map { name, year, genre in
            let record = CKRecord(recordType: "Film", recordID: CKRecord.ID(recordName: name))
            record["year"] = year
            if !genre.isEmpty { record["genre"] = genre }
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        return database
    }

    @Test func orAndNotQueriesAndTheirCounts() async throws {
        let database = try await databaseWithFilms()
        let cases: [(NSPredicate, [String])] = [
            (NSPredicate(format: "genre == %@ OR year > %d", "horror", 2000), ["alien", "theroad", "thething", "untitled"]),
            (NSPredicate(format: "NOT (genre == %@ OR genre == %@)", "horror", "crime"), ["theroad", "untitled"]),
            (NSPredicate(format: "year < %d AND NOT (genre == %@ AND year > %d)", 2000, "horror", 1980), ["alien", "heat", "ronin"]),
        ]
        for (predicate, expected) in cases {
            let format = "\(predicate)"
            let query = CKQuery(recordType: "Film", predicate: predicate)
            query.sortDescriptors = [NSSortDescriptor(key: "year", ascending: true)]
            let (results, _) = try await database.records(matching: query)
            #expect(results.map(\.0.recordName).sorted() == expected, "\(format)")
            #expect(try await database.stratus.count(matching: query) == expected.count, "\(format)")
        }
        let all = CKQuery(recordType: "Film", predicate: NSPredicate(value: true))
        let counted = await withCheckedContinuation { continuation in
            database.stratus.count(matching: all, inZoneWith: nil) { continuation.resume(returning: $0) }
        }
        #expect(try counted.get() == 6)
        #expect(try await database.stratus.count(matching: CKQuery(recordType: "Film", predicate: NSPredicate(value: false))) == 0)
    }
}

import Foundation
import StratusKit
import Testing

/// Archived queries and fetched query subscriptions keep their real predicate: it reads back as
/// written and filters the same on the server.
@Suite("Archived queries and restored subscription predicates against a live server")
struct ArchivedQueryLiveTests {
    /// Saves films in `container` (a fresh one by default) and returns the database holding them.
    func databaseWithFilms(in container: CKContainer? = nil) async throws -> CKDatabase {
        var chosen = container
        if chosen == nil { chosen = try await LiveServer.shared().makeContainer() }
        let database = try #require(chosen).privateCloudDatabase
        let films: [(String, String, Int, String)] = [
            ("alien", "Alien", 1979, "horror"), ("heat", "Heat", 1995, "crime"), ("thething", "The Thing", 1982, "horror"),
            ("theroad", "The Road", 2009, "drama"), ("ronin", "Ronin", 1998, "crime"), ("theraid", "The Raid", 2011, "action"),
        ]
        let records = films.map { name, title, year, genre in
            let record = CKRecord(recordType: "Film", recordID: CKRecord.ID(recordName: name))
            record["title"] = title
            record["year"] = year
            record["genre"] = genre
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        return database
    }

    func names(_ query: CKQuery, in database: CKDatabase) async throws -> [String] {
        try await database.records(matching: query).matchResults.map(\.0.recordName)
    }

    @Test func anArchivedQueryRestoresAndFiltersTheSame() async throws {
        let database = try await databaseWithFilms()
        let query = CKQuery(
            recordType: "Film",
            predicate: NSPredicate(
                format: "year >= %d AND genre IN %@ AND NOT title BEGINSWITH %@",
                1980, ["crime", "horror", "action"], "The R"))
        query.sortDescriptors = [NSSortDescriptor(key: "year", ascending: false)]
        let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data))

        #expect(restored.recordType == "Film")
        // `description` is `predicateFormat` (deprecated on Linux, where Foundation has no format strings).
        #expect(restored.predicate.description == #"year >= 1980 AND genre IN {"crime", "horror", "action"} AND NOT title BEGINSWITH "The R""#)
        #expect(restored.sortDescriptors?.map(\.key) == ["year"])
        #expect(restored.sortDescriptors?.first?.ascending == false)
        let expected = ["ronin", "heat", "thething"]
        #expect(try await names(query, in: database) == expected)
        #expect(try await names(restored, in: database) == expected, "the restored query filters and sorts as the original")
    }

    @Test func aQueryThatMatchesNothingStaysSoAndARefusedOneDoesNotArchive() async throws {
        let database = try await databaseWithFilms()
        let nothing = CKQuery(recordType: "Film", predicate: NSPredicate(value: false))
        let data = try NSKeyedArchiver.archivedData(withRootObject: nothing, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data))
        #expect(try await names(restored, in: database).isEmpty)

        let refused = CKQuery(recordType: "Film", predicate: NSPredicate(format: "title ENDSWITH %@", "n"))
        let refusedData = try NSKeyedArchiver.archivedData(withRootObject: refused, requiringSecureCoding: true)
        // Foundation reports the failed decode as an error (or, with another policy, as nil).
        let restoredRefused = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: refusedData)
        #expect(restoredRefused == nil)
    }

    @Test func aFetchedQuerySubscriptionReadsItsRealPredicate() async throws {
        let container = try await LiveServer.shared().makeContainer()
        let database = try await databaseWithFilms(in: container)
        let predicate = NSPredicate(format: "year > %d AND title BEGINSWITH %@", 1990, "The")
        let subscription = CKQuerySubscription(
            recordType: "Film", predicate: predicate, subscriptionID: "new-the-films",
            options: [.firesOnRecordCreation])
        _ = try await database.save(subscription)

        let freshContainer = try #require(try await LiveServer.shared().anotherDevice(of: container))
        let fetched = try #require(try await freshContainer.privateCloudDatabase.subscription(for: "new-the-films") as? CKQuerySubscription)
        #expect(fetched.predicate.description == #"year > 1990 AND title BEGINSWITH "The""#)
        let original = try await names(CKQuery(recordType: "Film", predicate: predicate), in: database)
        #expect(original.sorted() == ["theraid", "theroad"])
        #expect(try await names(CKQuery(recordType: "Film", predicate: fetched.predicate), in: database).sorted() == original.sorted())

        let archived = try NSKeyedArchiver.archivedData(withRootObject: fetched, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuerySubscription.self, from: archived))
        #expect(restored.predicate.description == fetched.predicate.description, "an archived subscription keeps it too")
    }
}

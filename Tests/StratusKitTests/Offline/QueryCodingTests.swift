import Foundation
@testable import StratusKit
import StratusModel
import Testing

/// Archived queries send the server exactly what the original sends.
@Suite("Queries survive secure archiving")
struct QueryCodingTests {
    func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }

    @Test(arguments: PredicateGoldenTests.cases)
    func aRestoredQuerySendsTheSameFiltersAndSorts(_ testCase: PredicateGoldenTests.Case) throws {
        let query = CKQuery(recordType: "Whistle", predicate: testCase.predicate())
        query.sortDescriptors = [
            NSSortDescriptor(key: "creationDate", ascending: false),
            CKLocationSortDescriptor(key: "where", relativeLocation: PredicateGoldenTests.here),
        ]
        let restored = try #require(try roundTrip(query))
        let original = try #require(try query.wireQuery())
        #expect(try restored.wireQuery() == original, "\(restored.predicate)")
    }

    @Test func aRestoredPredicateReadsAsItsFormat() throws {
        let owner = CKRecord.Reference(recordID: CKRecord.ID(recordName: "ada"), action: .none)
        let query = CKQuery(
            recordType: "Note",
            predicate: NSPredicate(
                format: "title BEGINSWITH %@ AND NOT tags CONTAINS %@ AND score BETWEEN {1, 2.5} AND owner == %@", "A \"quoted\"", "old", owner))
        let restored = try #require(try roundTrip(query))
        #expect(restored.predicate.description == #"title BEGINSWITH "A \"quoted\"" AND NOT tags CONTAINS "old" AND score >= 1 AND score <= 2.5 AND owner == <CKReference: recordName=ada>"#)
        let nothing = try #require(try roundTrip(CKQuery(recordType: "Note", predicate: NSPredicate(value: false))))
        #expect(try nothing.wireQuery() == nil, "FALSEPREDICATE still matches nothing")
    }

    @Test func locationSortDescriptorsRoundTrip() throws {
        let descriptor = CKLocationSortDescriptor(key: "where", relativeLocation: CLLocation(latitude: 48.85, longitude: 2.35))
        let restored = try #require(try roundTrip(descriptor))
        #expect(restored.key == "where")
        #expect(restored.ascending)
        #expect(restored.relativeLocation.coordinate.latitude == 48.85)
        #expect(restored.relativeLocation.coordinate.longitude == 2.35)
    }
}

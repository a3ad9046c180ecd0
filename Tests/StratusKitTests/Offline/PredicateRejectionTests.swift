import Foundation
@testable import StratusKit
import Testing

/// Predicates CloudKit refuses fail with `invalidArguments` and a message that names the part.
@Suite("Predicate rejections")
struct PredicateRejectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let predicate: @Sendable () -> NSPredicate
        let mentions: String
        var testDescription: String { mentions }
    }

    static let cases: [Case] = [
        Case(predicate: { NSPredicate(format: "ALL tags == 'x'") }, mentions: "ALL"),
        Case(predicate: { NSPredicate(format: "name ENDSWITH 'x'") }, mentions: "ENDSWITH"),
        Case(predicate: { NSPredicate(format: "name LIKE 'x*'") }, mentions: "LIKE"),
        Case(predicate: { NSPredicate(format: "name MATCHES '.*'") }, mentions: "MATCHES"),
        Case(predicate: { NSPredicate(format: "name BEGINSWITH[c] 'x'") }, mentions: "[c]"),
        Case(predicate: { NSPredicate(format: "NOT (age BETWEEN {1, 2})") }, mentions: "BETWEEN"),
        Case(predicate: { NSPredicate(format: "NOT (self CONTAINS 'bob')") }, mentions: "token"),
        Case(predicate: { NSPredicate(format: "age BETWEEN {1, 2, 3}") }, mentions: "exactly two"),
        Case(predicate: { NSPredicate(format: "a == b") }, mentions: "two fields"),
        Case(predicate: { NSPredicate(format: "a == nil") }, mentions: "nil"),
        Case(predicate: { NSPredicate(format: "a == %@") }, mentions: "too few arguments"),
        Case(predicate: { NSPredicate(format: "a == %@", "x", "y") }, mentions: "2 arguments"),
        Case(predicate: { NSPredicate(format: "a ==") }, mentions: "end of format"),
        Case(predicate: { NSPredicate(format: "a == 'open") }, mentions: "unterminated"),
        Case(predicate: { NSPredicate(format: "a == $VAR") }, mentions: "$VAR"),
        Case(predicate: { NSPredicate(format: "a IN 'x'") }, mentions: "list"),
        Case(predicate: { NSPredicate(format: "a == %@", NSObject()) }, mentions: "NSObject"),
        Case(predicate: { NSPredicate(format: "distanceToLocation:fromLocation:(loc, %@) > 5", CLLocation(latitude: 0, longitude: 0)) }, mentions: "distanceToLocation"),
        Case(predicate: { NSPredicate(format: "uppercase(name) == 'X'") }, mentions: "uppercase"),
    ]

    @Test(arguments: cases)
    func refuses(_ testCase: Case) {
        do {
            _ = try testCase.predicate().queryFilters()
            Issue.record("expected a refusal mentioning \(testCase.mentions)")
        } catch {
            #expect(error.code == .invalidArguments)
            #expect(error.localizedDescription.contains(testCase.mentions), "\(error.localizedDescription)")
        }
    }

    @Test func queryOnUsersIsRefused() {
        #expect(throws: CKError.self) { try CKQuery(recordType: "Users", predicate: NSPredicate(value: true)).wireQuery() }
    }
}

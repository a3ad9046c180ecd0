import Foundation
import StratusKit
@testable import StratusKit
import StratusModel
import Testing

/// Predicate formats as apps write them, and the CKWS `filterBy` each must become (docs/protocol.md §5; the forms Apple accepts: https://developer.apple.com/documentation/cloudkit/ckquery).
@Suite("Predicate → CKWS filters")
struct PredicateGoldenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let predicate: @Sendable () -> NSPredicate
        let expected: String
        let label: String
        var testDescription: String { label }
    }

    static let date = Date(timeIntervalSince1970: 1_700_000_000.123)
    static let here = CLLocation(latitude: 52.5, longitude: 13.4)

    static let cases: [Case] = [
        Case(predicate: { NSPredicate(value: true) }, expected: "[]", label: "NSPredicate(value: true)"),
        Case(predicate: { NSPredicate(format: "TRUEPREDICATE") }, expected: "[]", label: "TRUEPREDICATE"),
        Case(
            predicate: { NSPredicate(format: "genre == %@", "Rock") },
            expected: #"[{"comparator":"EQUALS","fieldName":"genre","fieldValue":{"type":"STRING","value":"Rock"}}]"#,
            label: "genre == %@"),
        Case(
            predicate: { NSPredicate(format: "%K = 'Rock'", "genre") },
            expected: #"[{"comparator":"EQUALS","fieldName":"genre","fieldValue":{"type":"STRING","value":"Rock"}}]"#,
            label: "%K = literal"),
        Case(
            predicate: { NSPredicate(format: "age > %d AND score <= %f", 18, 2.5) },
            expected:
                #"[{"comparator":"GREATER_THAN","fieldName":"age","fieldValue":{"type":"INT64","value":18}},{"comparator":"LESS_THAN_OR_EQUALS","fieldName":"score","fieldValue":{"type":"DOUBLE","value":2.5}}]"#,
            label: "%d AND %f"),
        Case(
            predicate: { NSPredicate(format: "age != 3 && rank <> 4") },
            expected:
                #"[{"comparator":"NOT_EQUALS","fieldName":"age","fieldValue":{"type":"INT64","value":3}},{"comparator":"NOT_EQUALS","fieldName":"rank","fieldValue":{"type":"INT64","value":4}}]"#,
            label: "!= and <>"),
        Case(
            predicate: { NSPredicate(format: "5 < age") },
            expected: #"[{"comparator":"GREATER_THAN","fieldName":"age","fieldValue":{"type":"INT64","value":5}}]"#,
            label: "value on the left flips the operator"),
        Case(
            predicate: { NSPredicate(format: "NOT (age < 5)") },
            expected: #"[{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"age","fieldValue":{"type":"INT64","value":5}}]"#,
            label: "NOT of an ordering"),
        Case(
            predicate: { NSPredicate(format: "age BETWEEN {18, 30}") },
            expected:
                #"[{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"age","fieldValue":{"type":"INT64","value":18}},{"comparator":"LESS_THAN_OR_EQUALS","fieldName":"age","fieldValue":{"type":"INT64","value":30}}]"#,
            label: "BETWEEN"),
        Case(
            predicate: { NSPredicate(format: "favoriteColor IN { 'red', 'green' }") },
            expected: #"[{"comparator":"IN","fieldName":"favoriteColor","fieldValue":{"type":"STRING_LIST","value":["red","green"]}}]"#,
            label: "IN literal list"),
        Case(
            predicate: { NSPredicate(format: "favoriteColor IN %@", ["red", "green"]) },
            expected: #"[{"comparator":"IN","fieldName":"favoriteColor","fieldValue":{"type":"STRING_LIST","value":["red","green"]}}]"#,
            label: "IN %@ array"),
        Case(
            predicate: { NSPredicate(format: "ANY { 'red', 'green' } = favoriteColor") },
            expected: #"[{"comparator":"IN","fieldName":"favoriteColor","fieldValue":{"type":"STRING_LIST","value":["red","green"]}}]"#,
            label: "ANY {list} = key"),
        Case(
            predicate: { NSPredicate(format: "NOT (favoriteColor IN %@)", ["red"]) },
            expected: #"[{"comparator":"NOT_IN","fieldName":"favoriteColor","fieldValue":{"type":"STRING_LIST","value":["red"]}}]"#,
            label: "NOT IN"),
        Case(
            predicate: { NSPredicate(format: "ANY favoriteColors = 'red'") },
            expected: #"[{"comparator":"LIST_CONTAINS","fieldName":"favoriteColors","fieldValue":{"type":"STRING","value":"red"}}]"#,
            label: "ANY list = value"),
        Case(
            predicate: { NSPredicate(format: "favoriteColors CONTAINS 'red'") },
            expected: #"[{"comparator":"LIST_CONTAINS","fieldName":"favoriteColors","fieldValue":{"type":"STRING","value":"red"}}]"#,
            label: "list CONTAINS value"),
        Case(
            predicate: { NSPredicate(format: "'red' IN favoriteColors") },
            expected: #"[{"comparator":"LIST_CONTAINS","fieldName":"favoriteColors","fieldValue":{"type":"STRING","value":"red"}}]"#,
            label: "value IN list"),
        Case(
            predicate: { NSPredicate(format: "%K CONTAINS %@", "tags", "swift") },
            expected: #"[{"comparator":"LIST_CONTAINS","fieldName":"tags","fieldValue":{"type":"STRING","value":"swift"}}]"#,
            label: "%K CONTAINS %@"),
        Case(
            predicate: { NSPredicate(format: "name BEGINSWITH 'red'") },
            expected: #"[{"comparator":"BEGINS_WITH","fieldName":"name","fieldValue":{"type":"STRING","value":"red"}}]"#,
            label: "BEGINSWITH"),
        Case(
            predicate: { NSPredicate(format: "ANY favoriteColors BEGINSWITH %@", "gr") },
            expected: #"[{"comparator":"LIST_MEMBER_BEGINS_WITH","fieldName":"favoriteColors","fieldValue":{"type":"STRING","value":"gr"}}]"#,
            label: "ANY list BEGINSWITH"),
        Case(
            predicate: { NSPredicate(format: "self contains 'bob smith'") },
            expected: #"[{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"allTokens","fieldValue":{"type":"STRING","value":"bob smith"}}]"#,
            label: "self contains"),
        Case(
            predicate: { NSPredicate(format: "allTokens TOKENMATCHES[cdl] %@", "bob") },
            expected: #"[{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"allTokens","fieldValue":{"type":"STRING","value":"bob"}}]"#,
            label: "allTokens TOKENMATCHES[cdl]"),
        Case(
            predicate: { NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", here, 2.5) },
            expected:
                #"[{"comparator":"NEAR","distance":2500.0,"fieldName":"location","fieldValue":{"type":"LOCATION","value":{"altitude":0.0,"course":-1.0,"horizontalAccuracy":0.0,"latitude":52.5,"longitude":13.4,"speed":-1.0,"timestamp":\#(here.timestamp.millisecondsSince1970),"verticalAccuracy":-1.0}}}]"#,
            label: "distanceToLocation km → NEAR metres"),
        Case(
            predicate: { NSPredicate(format: "creationDate > %@", date) },
            expected: #"[{"comparator":"GREATER_THAN","fieldValue":{"type":"TIMESTAMP","value":1700000000123},"systemFieldName":"createdTimestamp"}]"#,
            label: "creationDate"),
        Case(
            predicate: { NSPredicate(format: "___modTime <= %@", date) },
            expected: #"[{"comparator":"LESS_THAN_OR_EQUALS","fieldValue":{"type":"TIMESTAMP","value":1700000000123},"systemFieldName":"modifiedTimestamp"}]"#,
            label: "___modTime"),
        Case(
            predicate: { NSPredicate(format: "recordID == %@", CKRecord.ID(recordName: "r1")) },
            expected: #"[{"comparator":"EQUALS","fieldValue":{"type":"REFERENCE","value":{"action":"NONE","recordName":"r1"}},"systemFieldName":"recordName"}]"#,
            label: "recordID"),
        Case(
            predicate: { NSPredicate(format: "creatorUserRecordID == %@", CKRecord.ID(recordName: "_u1")) },
            expected: #"[{"comparator":"EQUALS","fieldValue":{"type":"REFERENCE","value":{"action":"NONE","recordName":"_u1"}},"systemFieldName":"createdUserRecordName"}]"#,
            label: "creatorUserRecordID"),
        Case(
            predicate: { NSPredicate(format: "employee == %@", CKRecord.Reference(recordID: CKRecord.ID(recordName: "e1"), action: .deleteSelf)) },
            expected: #"[{"comparator":"EQUALS","fieldName":"employee","fieldValue":{"type":"REFERENCE","value":{"action":"NONE","recordName":"e1"}}}]"#,
            label: "reference equality"),
        Case(
            predicate: { NSPredicate(format: "done == %@", NSNumber(value: true)) },
            expected: #"[{"comparator":"EQUALS","fieldName":"done","fieldValue":{"type":"INT64","value":1}}]"#,
            label: "NSNumber bool"),
        Case(
            predicate: { NSPredicate(format: "done == TRUE AND flag == NO") },
            expected: #"[{"comparator":"EQUALS","fieldName":"done","fieldValue":{"type":"INT64","value":1}},{"comparator":"EQUALS","fieldName":"flag","fieldValue":{"type":"INT64","value":0}}]"#,
            label: "TRUE/NO literals"),
        Case(
            predicate: { NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), NSPredicate(format: "b == %@", "x")]) },
            expected: #"[{"comparator":"EQUALS","fieldName":"a","fieldValue":{"type":"INT64","value":1}},{"comparator":"EQUALS","fieldName":"b","fieldValue":{"type":"STRING","value":"x"}}]"#,
            label: "NSCompoundPredicate AND"),
        Case(
            predicate: { NSPredicate(format: "(a == 1) AND ((b == 2))") },
            expected: #"[{"comparator":"EQUALS","fieldName":"a","fieldValue":{"type":"INT64","value":1}},{"comparator":"EQUALS","fieldName":"b","fieldValue":{"type":"INT64","value":2}}]"#,
            label: "parentheses"),
        Case(
            predicate: { NSPredicate(format: "price >= -2.5") },
            expected: #"[{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"price","fieldValue":{"type":"DOUBLE","value":-2.5}}]"#,
            label: "negative literal"),
        Case(
            predicate: { NSPredicate(format: "genre == 'Rock' OR rating > 4") },
            expected:
                #"[{"anyOf":[{"comparator":"EQUALS","fieldName":"genre","fieldValue":{"type":"STRING","value":"Rock"}},{"comparator":"GREATER_THAN","fieldName":"rating","fieldValue":{"type":"INT64","value":4}}]}]"#,
            label: "OR becomes a Stratus anyOf group"),
        Case(
            predicate: { NSPredicate(format: "a == 1 AND NOT (b == 2 AND c == 3)") },
            expected:
                #"[{"comparator":"EQUALS","fieldName":"a","fieldValue":{"type":"INT64","value":1}},{"not":{"allOf":[{"comparator":"EQUALS","fieldName":"b","fieldValue":{"type":"INT64","value":2}},{"comparator":"EQUALS","fieldName":"c","fieldValue":{"type":"INT64","value":3}}]}}]"#,
            label: "NOT of an AND becomes a Stratus not group"),
        Case(
            predicate: { NSPredicate(format: "a == 1 OR FALSEPREDICATE") },
            expected: #"[{"comparator":"EQUALS","fieldName":"a","fieldValue":{"type":"INT64","value":1}}]"#,
            label: "an OR member that matches nothing drops out"),
        Case(
            predicate: { NSPredicate(format: "a == 1 OR TRUEPREDICATE") },
            expected: "[]",
            label: "an OR with a member that matches everything matches everything"),
    ]

    @Test(arguments: cases)
    func translates(_ testCase: Case) throws {
        let filters = try testCase.predicate().queryFilters()
        guard case .filters(let actual) = filters else {
            Issue.record("expected filters, got 'matches nothing'")
            return
        }
        let expected = try JSONValue.parse(testCase.expected)
        #expect(JSONValue.array(actual) == expected, "\(JSONValue.array(actual).serializedString)")
    }

    @Test func falsePredicateMatchesNothingWithoutAFilter() throws {
        for predicate in [NSPredicate(value: false), NSPredicate(format: "FALSEPREDICATE")] {
            guard case .none = try predicate.queryFilters() else {
                Issue.record("FALSEPREDICATE should match nothing")
                continue
            }
        }
    }

    @Test func sortDescriptorsKeepOrderAndMapSystemKeys() throws {
        let query = CKQuery(recordType: "Whistle", predicate: NSPredicate(value: true))
        query.sortDescriptors = [
            NSSortDescriptor(key: "creationDate", ascending: false),
            NSSortDescriptor(key: "genre", ascending: true),
            CKLocationSortDescriptor(key: "where", relativeLocation: CLLocation(latitude: 1, longitude: 2)),
        ]
        let wire = try #require(try query.wireQuery())
        let sorts = try #require(wire["sortBy"]?.arrayValue)
        #expect(sorts.count == 3)
        #expect(sorts[0] == ["systemFieldName": "createdTimestamp", "ascending": false])
        #expect(sorts[1] == ["fieldName": "genre", "ascending": true])
        #expect(sorts[2]["fieldName"] == "where")
        #expect(sorts[2]["relativeLocation"]?["type"] == "LOCATION")
        #expect(sorts[2]["relativeLocation"]?["value"]?["latitude"] == .double(1))
        #expect(wire["filterBy"] == nil)
        #expect(wire["recordType"] == "Whistle")
    }

    @Test func sortDescriptorKeyReadsBack() {
        let descriptor = NSSortDescriptor(key: "modificationDate", ascending: true)
        #expect(descriptor.key == "modificationDate")
        #expect(descriptor.ascending)
        let copy = descriptor.copy() as? NSSortDescriptor
        #expect(copy?.key == "modificationDate")
    }
}

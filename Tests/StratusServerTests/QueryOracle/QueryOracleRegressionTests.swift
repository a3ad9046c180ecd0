import Foundation
import HummingbirdTesting
import StratusModel
import StratusServer
import Testing

/// Mismatches the query oracle found, kept as fixed cases: each states the answer by hand, checks
/// that the oracle agrees, and reads it from the server page by page.
@Suite("records/query: cases the oracle found")
struct QueryOracleRegressionTests {
    static func field(_ name: String) -> OracleField { OracleField.all.first { $0.name == name }! }

    /// Saves `records`, then expects `query` to return `expected`, in order, one record a page.
    func expect(_ records: [OracleRecord], _ queries: [(OracleQuery, [String])]) async throws {
        try await RouterFixture.run { fixture, client in
            let session = OracleSession(fixture: fixture, client: client)
            try await session.prepareSchema()
            var saved = records
            try await session.save(&saved)
            var totals = OracleTotals()
            for (query, expected) in queries {
                #expect(query.evaluate(saved) == expected, "the oracle disagrees with the stated answer to \(query.queryJSON.serializedString)")
                let problem = try await session.check(query, records: saved, totals: &totals)
                #expect(problem == nil, "\(problem ?? "")")
            }
        }
    }

    func filter(
        _ name: String, _ comparator: String, _ value: OracleScalar? = nil, values: [OracleScalar] = [],
        distance: Double? = nil
    ) -> OracleQuery {
        OracleQuery(
            filters: [OracleFilter(operand: .field(Self.field(name)), comparator: comparator, value: value, values: values, distance: distance)],
            sorts: [], pageSize: 1)
    }

    @Test("NEAR with a radius of hundreds of kilometres keeps records just inside it due north and south")
    func nearLongRadius() async throws {
        let (latitude, longitude) = (37.33, -122.03)
        let radius = 1_000_000.0
        func point(_ name: String, _ factor: Double) -> OracleRecord {
            let moved = latitude + factor * radius / LocationValue.metresPerDegreeOfLatitude
            return OracleRecord(name: name, fields: ["l": .scalar(.location(latitude: moved, longitude: longitude))])
        }
        let records = [point("north", 0.999), point("south", -0.999), point("beyond", 1.001), point("centre", 0)]
        let centre = OracleScalar.location(latitude: latitude, longitude: longitude)
        try await expect(
            records,
            [
                (filter("l", "NEAR", centre, distance: radius), ["centre", "north", "south"]),
                (filter("l", "NEAR", centre, distance: 5_000_000), ["beyond", "centre", "north", "south"]),
            ])
    }

    @Test("list comparators find 0.0 and -0.0 as the one number they are")
    func negativeZeroInLists() async throws {
        let records = [
            OracleRecord(name: "negative", fields: ["dl": .list([.double(-0.0)])]),
            OracleRecord(name: "positive", fields: ["dl": .list([.double(0.0), .double(1)])]),
            OracleRecord(name: "both", fields: ["dl": .list([.double(-0.0), .double(0.0)])]),
            OracleRecord(name: "other", fields: ["dl": .list([.double(1)])]),
        ]
        try await expect(
            records,
            [
                (filter("dl", "LIST_CONTAINS", .double(0.0)), ["both", "negative", "positive"]),
                (filter("dl", "LIST_CONTAINS", .double(-0.0)), ["both", "negative", "positive"]),
                (filter("dl", "NOT_LIST_CONTAINS", .double(0.0)), ["other"]),
                (filter("dl", "LIST_CONTAINS_ALL", values: [.double(0.0), .double(-0.0)]), ["both", "negative", "positive"]),
                (filter("dl", "LIST_CONTAINS_ANY", values: [.double(-0.0)]), ["both", "negative", "positive"]),
            ])
    }

    @Test("a list keeps a precomposed and a decomposed \"é\" apart, as different strings")
    func canonicallyEquivalentStringsInLists() async throws {
        let composed = OracleScalar.text("é")
        let decomposed = OracleScalar.text("e\u{301}")
        let records = [
            OracleRecord(name: "composed", fields: ["sl": .list([composed]), "s": .scalar(composed)]),
            OracleRecord(name: "decomposed", fields: ["sl": .list([decomposed]), "s": .scalar(decomposed)]),
            OracleRecord(name: "twins", fields: ["sl": .list([decomposed, composed])]),
            OracleRecord(name: "twinsReversed", fields: ["sl": .list([composed, decomposed])]),
        ]
        try await expect(
            records,
            [
                (filter("sl", "LIST_CONTAINS", composed), ["composed", "twins", "twinsReversed"]),
                (filter("sl", "LIST_CONTAINS", decomposed), ["decomposed", "twins", "twinsReversed"]),
                (filter("sl", "LIST_CONTAINS_ALL", values: [composed, decomposed]), ["twins", "twinsReversed"]),
                (filter("sl", "NOT_LIST_CONTAINS_ALL", values: [decomposed, composed]), ["composed", "decomposed"]),
                (filter("s", "EQUALS", composed), ["composed"]),
            ])
    }

    @Test("token search folds the stored text as it folds the query: \"Straße\" is found by \"strasse\", a noncharacter splits words")
    func tokenFolding() async throws {
        let records = [
            OracleRecord(name: "sharp", fields: ["s": .scalar(.text("Die Straße"))]),
            OracleRecord(name: "spelled", fields: ["s": .scalar(.text("STRASSE 1"))]),
            OracleRecord(name: "split", fields: ["s": .scalar(.text("a\u{10FFFF}b"))]),
            OracleRecord(name: "other", fields: ["s": .scalar(.text("Weg"))]),
        ]
        try await expect(
            records,
            [
                (filter("s", "CONTAINS_ANY_TOKENS", .text("straße")), ["sharp", "spelled"]),
                (filter("s", "CONTAINS_ALL_TOKENS", .text("Strasse")), ["sharp", "spelled"]),
                (filter("s", "CONTAINS_ALL_TOKENS", .text("die STRASSE")), ["sharp"]),
                (filter("s", "CONTAINS_ALL_TOKENS", .text("b a")), ["split"]),
            ])
    }

    @Test("comparators other than NEAR on a LOCATION are refused with the reason, not answered with nothing")
    func locationComparatorsRefused() async throws {
        try await RouterFixture.run { fixture, client in
            let session = OracleSession(fixture: fixture, client: client)
            try await session.prepareSchema()
            let place: JSONValue = ["latitude": 1.0, "longitude": 2.0]
            let filters: [JSONValue] = [
                ["fieldName": "l", "comparator": "EQUALS", "fieldValue": ["value": place]],
                ["fieldName": "l", "comparator": "NOT_IN", "fieldValue": ["value": [place], "type": "LOCATION_LIST"]],
                ["fieldName": "ll", "comparator": "LIST_CONTAINS", "fieldValue": ["value": place]],
            ]
            for filter in filters {
                let body: JSONValue = ["query": ["recordType": .string(OracleField.recordType), "filterBy": [filter]]]
                let response = try await client.call(session.path("records/query"), json: body)
                #expect(response.status == 400, "\(filter.serializedString)")
                #expect(response.json["serverErrorCode"]?.stringValue == "BAD_REQUEST")
                #expect(
                    response.json["reason"]?.stringValue?.contains("filter LOCATION fields with NEAR") == true,
                    "\(response.json.serializedString)")
            }
        }
    }
}

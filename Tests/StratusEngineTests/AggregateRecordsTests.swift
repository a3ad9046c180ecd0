import StratusEngine
import StratusModel
import StratusWire
import Testing

/// records/aggregate: count, sum, min, max and avg over a query's records, grouped by one field.
@Suite("records/aggregate")
struct AggregateRecordsTests {
    static func aggregate(_ fixture: EngineFixture, _ scope: RequestScope, _ body: JSONValue) async throws -> JSONValue {
        try await fixture.engine.aggregateRecords(scope, body: body)
    }

    static let all: [JSONValue] = [
        ["function": "count"], ["function": "sum", "fieldName": "rating"], ["function": "min", "fieldName": "rating"],
        ["function": "max", "fieldName": "rating"], ["function": "avg", "fieldName": "rating"],
    ]

    @Test("every function over the query's records, filter groups included")
    func functions() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let whole = try await AggregateRecordsTests.aggregate(fixture, scope, ["query": ["recordType": "Item"], "aggregates": .array(AggregateRecordsTests.all)])
        #expect(whole["groups"]?.arrayValue?.count == 1)
        #expect(whole["groups"]?[0]?["count"] == 5)
        #expect(whole["groups"]?[0]?["aggregates"]?.arrayValue?.map { $0["value"] } == [5, 25, 1, 9, 5.0])
        let either: JSONValue = ["anyOf": [FilterGroupTests.equals("genre", "rock"), FilterGroupTests.compare("rating", "LESS_THAN", 2)]]
        let filtered = try await AggregateRecordsTests.aggregate(
            fixture, scope, ["query": ["recordType": "Item", "filterBy": [either]], "aggregates": [["function": "sum", "fieldName": "rating"]]])
        #expect(filtered["groups"]?[0]?["count"] == 3)
        #expect(filtered["groups"]?[0]?["aggregates"]?[0]?["value"] == 15)
        let none = try await AggregateRecordsTests.aggregate(
            fixture, scope, ["query": ["recordType": "Item", "filterBy": [FilterGroupTests.equals("genre", "blues")]], "aggregates": .array(AggregateRecordsTests.all)])
        #expect(none["groups"]?[0]?["count"] == 0)
        #expect(none["groups"]?[0]?["aggregates"]?[1] == .null, "the sum of no values is null")
    }

    @Test("groups come largest first, then by key, paged by continuation markers")
    func grouped() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        var body: [String: JSONValue] = [
            "query": ["recordType": "Item"], "aggregates": [["function": "sum", "fieldName": "rating"]],
            "groupBy": ["fieldName": "genre"], "resultsLimit": 2,
        ]
        var keys: [JSONValue] = []
        var sums: [JSONValue] = []
        var pages = 0
        repeat {
            let page = try await AggregateRecordsTests.aggregate(fixture, scope, .object(body))
            pages += 1
            for group in page["groups"]?.arrayValue ?? [] {
                keys.append(group["key"]?["value"] ?? .null)
                sums.append(group["aggregates"]?[0]?["value"] ?? .null)
            }
            body["continuationMarker"] = page["continuationMarker"]
        } while body["continuationMarker"] != nil && pages < 5
        #expect(pages == 2)
        // rock has two records; the record without a genre is the group with a null key.
        #expect(keys == ["rock", .null, "jazz", "pop"])
        #expect(sums == [14, 7, 3, 1])
    }

    @Test("bad aggregates are a BAD_REQUEST naming the problem")
    func badInput() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let query: JSONValue = ["recordType": "Item"]
        let cases: [(JSONValue, String)] = [
            (["query": query], "aggregates: is required"),
            (["query": query, "aggregates": []], "aggregates: give at least one"),
            (["query": query, "aggregates": [["function": "median", "fieldName": "rating"]]], "aggregates[0].function: 'median' is not an aggregate"),
            (["query": query, "aggregates": [["function": "sum", "fieldName": "genre"]]], "aggregates[0]: sum applies to INT64 or DOUBLE fields; 'genre' is STRING"),
            (["query": query, "aggregates": [["function": "avg"]]], "aggregates[0].fieldName"),
            (["query": query, "aggregates": [["function": "max", "fieldName": "nothing"]]], "field 'nothing' is not in the schema"),
            (["query": query, "aggregates": [["function": "count"]], "resultsLimit": 1001], "groups per page are 1 to 1000"),
            (["query": query, "aggregates": [["function": "count"]], "groupBy": ["fieldName": "rating", "extra": ["x"]], "resultsLimit": -1], "resultsLimit"),
            (["query": ["recordType": "Item", "filterBy": [["anyOf": []]]], "aggregates": [["function": "count"]]], "query.filterBy[0].anyOf"),
        ]
        for (body, expected) in cases {
            let error = await cloudKitError { _ = try await AggregateRecordsTests.aggregate(fixture, scope, body) }
            #expect(error?.code == .badRequest, "\(body.serializedString)")
            #expect(error?.reason.contains(expected) == true, "\(body.serializedString): \(error?.reason ?? "no error")")
        }
    }

    @Test("production needs the grouped and aggregated fields indexed, and names the index")
    func productionIndexes() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let development = try await fixture.scope()
        try await fixture.modify(development, [createOp("a", fields: ["genre": "rock", "rating": 1, "plays": 10])])
        _ = try await AggregateRecordsTests.aggregate(
            fixture, development,
            ["query": ["recordType": "Item"], "aggregates": [["function": "sum", "fieldName": "rating"]], "groupBy": ["fieldName": "genre"]])
        try await fixture.engine.deploySchema(container: fixture.container)
        let production = try await fixture.scope(environment: .production)
        try await fixture.modify(production, [createOp("p", fields: ["genre": "rock", "rating": 4, "plays": 10])])
        let answered = try await AggregateRecordsTests.aggregate(
            fixture, production,
            ["query": ["recordType": "Item"], "aggregates": [["function": "sum", "fieldName": "rating"]], "groupBy": ["fieldName": "genre"]])
        #expect(answered["groups"]?[0]?["aggregates"]?[0]?["value"] == 4)
        let unindexedGroup = await cloudKitError {
            _ = try await AggregateRecordsTests.aggregate(
                fixture, production, ["query": ["recordType": "Item"], "aggregates": [["function": "count"]], "groupBy": ["fieldName": "plays"]])
        }
        #expect(unindexedGroup?.reason == "Field 'plays' is not marked queryable")
        let unindexedSum = await cloudKitError {
            _ = try await AggregateRecordsTests.aggregate(
                fixture, production, ["query": ["recordType": "Item"], "aggregates": [["function": "max", "fieldName": "plays"]], "groupBy": ["fieldName": "genre"]])
        }
        #expect(unindexedSum?.reason == "Field 'plays' is not marked queryable")
    }
}

import StratusEngine
import StratusModel
import Testing

/// Stratus's boolean filter groups in records/query and query subscriptions: OR, NOT and nested
/// AND beside CloudKit's implicit AND, on the test backend.
@Suite("records/query filter groups")
struct FilterGroupTests {
    /// a: rock 5, b: jazz 3, c: rock 9, d: pop 1, e: no genre, rating 7.
    static func seeded() async throws -> (EngineFixture, RequestScope) {
        let fixture = try await EngineFixture.make()
        let scope = try await fixture.scope()
        try await fixture.modify(
            scope,
            [
                createOp("a", fields: ["genre": "rock", "rating": 5]), createOp("b", fields: ["genre": "jazz", "rating": 3]),
                createOp("c", fields: ["genre": "rock", "rating": 9]), createOp("d", fields: ["genre": "pop", "rating": 1]),
                createOp("e", fields: ["rating": 7]),
            ])
        return (fixture, scope)
    }

    static func equals(_ field: String, _ value: JSONValue) -> JSONValue {
        ["fieldName": .string(field), "comparator": "EQUALS", "fieldValue": ["value": value]]
    }

    static func compare(_ field: String, _ comparator: String, _ value: JSONValue) -> JSONValue {
        ["fieldName": .string(field), "comparator": .string(comparator), "fieldValue": ["value": value]]
    }

    @Test("anyOf, allOf and not, nested and beside plain filters")
    func meaning() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let cases: [([JSONValue], [String])] = [
            ([["anyOf": [FilterGroupTests.equals("genre", "jazz"), FilterGroupTests.equals("genre", "pop")]]], ["b", "d"]),
            ([["not": FilterGroupTests.equals("genre", "rock")]], ["b", "d", "e"]),
            // NOT_EQUALS leaves out a record without the field; not: {EQUALS} does not.
            ([FilterGroupTests.compare("genre", "NOT_EQUALS", "rock")], ["b", "d"]),
            (
                [
                    FilterGroupTests.compare("rating", "GREATER_THAN", 2),
                    ["anyOf": [FilterGroupTests.equals("genre", "jazz"), ["not": ["anyOf": [FilterGroupTests.equals("genre", "rock"), FilterGroupTests.equals("genre", "jazz")]]]]],
                ], ["b", "e"]
            ),
            ([["allOf": [FilterGroupTests.equals("genre", "rock"), FilterGroupTests.compare("rating", "LESS_THAN", 6)]]], ["a"]),
            ([["anyOf": [FilterGroupTests.equals("genre", "rock"), FilterGroupTests.compare("rating", "GREATER_THAN", 6)]]], ["a", "c", "e"]),
        ]
        for (filters, expected) in cases {
            let response = try await fixture.query(scope, ["recordType": "Item", "filterBy": .array(filters)])
            #expect(fixture.names(response).sorted() == expected, "\(JSONValue.array(filters).serializedString)")
        }
    }

    @Test("an OR query sorts and pages through continuation markers like a plain one")
    func pagesAcrossOr() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let query: JSONValue = [
            "recordType": "Item",
            "filterBy": [["anyOf": [FilterGroupTests.equals("genre", "rock"), FilterGroupTests.compare("rating", "LESS_THAN", 4)]]],
            "sortBy": [["fieldName": "rating", "ascending": false]],
        ]
        var names: [String] = []
        var marker: JSONValue?
        repeat {
            var extra: [String: JSONValue] = ["resultsLimit": 1]
            if let marker { extra["continuationMarker"] = marker }
            let page = try await fixture.query(scope, query, extra: extra)
            names += fixture.names(page)
            marker = page["continuationMarker"]
        } while marker != nil && names.count < 10
        #expect(names == ["c", "a", "b", "d"])
    }

    @Test("production needs the index of every field in every branch")
    func productionIndexes() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let development = try await fixture.scope()
        try await fixture.modify(development, [createOp("a", fields: ["genre": "rock", "rating": 1, "mood": "calm"])])
        // Development adds the indexes the query uses: genre and rating, not mood.
        _ = try await fixture.query(
            development,
            ["recordType": "Item", "filterBy": [["anyOf": [FilterGroupTests.equals("genre", "rock"), ["not": FilterGroupTests.equals("rating", 2)]]]]])
        try await fixture.engine.deploySchema(container: fixture.container)
        let production = try await fixture.scope(environment: .production)
        try await fixture.modify(production, [createOp("p", fields: ["genre": "rock", "rating": 1, "mood": "calm"])])
        let answered = try await fixture.query(
            production,
            ["recordType": "Item", "filterBy": [["anyOf": [FilterGroupTests.equals("genre", "pop"), ["not": FilterGroupTests.equals("rating", 2)]]]]])
        #expect(fixture.names(answered) == ["p"])
        let refused = await cloudKitError {
            _ = try await fixture.query(
                production,
                ["recordType": "Item", "filterBy": [["anyOf": [FilterGroupTests.equals("genre", "rock"), ["not": FilterGroupTests.equals("mood", "calm")]]]]])
        }
        #expect(refused?.reason == "Field 'mood' is not marked queryable")
    }

    @Test("malformed groups are a BAD_REQUEST naming where they are")
    func badGroups() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let rock = FilterGroupTests.equals("genre", "rock")
        var deep: JSONValue = rock
        for _ in 0..<5 { deep = ["not": deep] }
        let cases: [(JSONValue, String)] = [
            (["anyOf": []], "query.filterBy[0].anyOf: an empty group"),
            (["anyOf": rock], "query.filterBy[0].anyOf: expected an array"),
            (["not": [rock, rock]], "query.filterBy[0].not: expected one filter or group"),
            (["anyOf": [rock], "not": rock], "query.filterBy[0]: a filter group holds exactly one of anyOf, allOf or not"),
            (["anyOf": [rock, ["fieldName": "genre", "comparator": "SIMILAR", "fieldValue": ["value": "x"]]]], "query.filterBy[0].anyOf[1].comparator"),
            (["anyOf": [["fieldName": "genre", "comparator": "EQUALS", "fieldValue": ["value": "x"], "not": rock]]], "query.filterBy[0].anyOf[0].not: a filter with a comparator"),
            (deep, "query.filterBy[0].not.not.not.not.not: filter groups nest at most 4 deep"),
            (["anyOf": [FilterGroupTests.equals("rating", "high")]], "query.filterBy[0].anyOf[0].fieldValue"),
        ]
        for (group, expected) in cases {
            let error = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [group]]) }
            #expect(error?.code == .badRequest, "\(group.serializedString)")
            #expect(error?.reason.contains(expected) == true, "\(group.serializedString): \(error?.reason ?? "no error")")
        }
        let many: JSONValue = ["anyOf": .array(Array(repeating: rock, count: 51))]
        let tooMany = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [many]]) }
        #expect(tooMany?.reason.contains("51 filters") == true)
    }

    @Test("a query subscription with an OR fires for records either branch matches")
    func subscriptionOr() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("seed", fields: ["color": "blue"])])
        let subscriber = try await Subscriber.make(fixture, scope)
        let either: JSONValue = ["anyOf": [equalsFilter("color", "red"), equalsFilter("color", "green")]]
        let created = try await subscriber.subscribe(querySubscription("warm", firesOn: ["create"], filters: [either]))
        #expect(created["serverErrorCode"] == nil, "\(created.serializedString)")
        try await fixture.modify(
            scope, [createOp("r", fields: ["color": "red"]), createOp("b", fields: ["color": "blue"]), createOp("g", fields: ["color": "green"])])
        let fired = try await subscriber.drain().compactMap { $0["ck"]?["qry"]?["rid"]?.stringValue }
        #expect(fired.sorted() == ["g", "r"])
        let bad = try await subscriber.subscribe(querySubscription("bad", filters: [["anyOf": []]]))
        #expect(bad["serverErrorCode"] == "BAD_REQUEST")
    }
}

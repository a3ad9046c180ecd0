import StratusEngine
import StratusModel
import Testing

/// Seeds a small catalogue and returns the fixture and public development scope.
private func seeded() async throws -> (EngineFixture, RequestScope) {
    let fixture = try await EngineFixture.make()
    let scope = try await fixture.scope()
    let rows: [(String, String, Int64, Double, [String], Double, Double, String)] = [
        ("a", "rock", 5, 1.5, ["red", "blue"], 37.33, -122.03, "The quick brown fox"),
        ("b", "jazz", 3, 2.5, ["green"], 37.78, -122.42, "Jumps over the lazy dog"),
        ("c", "rock", 9, 0.5, ["red", "green"], 40.71, -74.00, "Quick thinking pays"),
        ("d", "pop", 1, 3.5, [], 51.50, -0.12, "Café au lait"),
    ]
    try await fixture.modify(
        scope,
        rows.map { name, genre, rating, score, tags, lat, lng, body in
            [
                "operationType": "create",
                "record": [
                    "recordName": .string(name), "recordType": "Item",
                    "fields": [
                        "genre": ["value": .string(genre)], "rating": ["value": .int(rating)], "score": ["value": .double(score)],
                        "tags": tags.isEmpty ? ["value": [], "type": "STRING_LIST"] : ["value": .array(tags.map { .string($0) })],
                        "place": ["value": ["latitude": .double(lat), "longitude": .double(lng)]],
                        "body": ["value": .string(body)],
                    ],
                ],
            ]
        })
    return (fixture, scope)
}

private func filter(_ field: String, _ comparator: String, _ value: JSONValue, type: String? = nil, system: Bool = false) -> JSONValue {
    var fieldValue: [String: JSONValue] = ["value": value]
    if let type { fieldValue["type"] = .string(type) }
    return [system ? "systemFieldName" : "fieldName": .string(field), "comparator": .string(comparator), "fieldValue": .object(fieldValue)]
}

@Suite("records/query")
struct QueryRecordsTests {
    @Test("every scalar comparator")
    func scalarComparators() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let cases: [(JSONValue, [String])] = [
            (filter("genre", "EQUALS", "rock"), ["a", "c"]),
            (filter("genre", "NOT_EQUALS", "rock"), ["b", "d"]),
            (filter("rating", "LESS_THAN", 3), ["d"]),
            (filter("rating", "LESS_THAN_OR_EQUALS", 3), ["b", "d"]),
            (filter("rating", "GREATER_THAN", 5), ["c"]),
            (filter("rating", "GREATER_THAN_OR_EQUALS", 5), ["a", "c"]),
            (filter("score", "GREATER_THAN", 2), ["b", "d"]),
            (filter("genre", "IN", ["jazz", "pop"], type: "STRING_LIST"), ["b", "d"]),
            (filter("genre", "NOT_IN", ["jazz", "pop"], type: "STRING_LIST"), ["a", "c"]),
            (filter("genre", "BEGINS_WITH", "ro"), ["a", "c"]),
            (filter("genre", "NOT_BEGINS_WITH", "ro"), ["b", "d"]),
            (filter("recordName", "EQUALS", "b", system: true), ["b"]),
        ]
        for (condition, expected) in cases {
            let response = try await fixture.query(scope, ["recordType": "Item", "filterBy": [condition]])
            #expect(fixture.names(response).sorted() == expected, "\(condition.serializedString)")
        }
    }

    @Test("list comparators")
    func listComparators() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let cases: [(JSONValue, [String])] = [
            (filter("tags", "LIST_CONTAINS", "red"), ["a", "c"]),
            (filter("tags", "NOT_LIST_CONTAINS", "red"), ["b", "d"]),
            (filter("tags", "LIST_CONTAINS_ANY", ["blue", "green"], type: "STRING_LIST"), ["a", "b", "c"]),
            (filter("tags", "NOT_LIST_CONTAINS_ANY", ["blue", "green"], type: "STRING_LIST"), ["d"]),
            (filter("tags", "LIST_CONTAINS_ALL", ["red", "green"], type: "STRING_LIST"), ["c"]),
            (filter("tags", "NOT_LIST_CONTAINS_ALL", ["red", "green"], type: "STRING_LIST"), ["a", "b", "d"]),
            (filter("tags", "LIST_MEMBER_BEGINS_WITH", "gr"), ["b", "c"]),
            (filter("tags", "NOT_LIST_MEMBER_BEGINS_WITH", "gr"), ["a", "d"]),
        ]
        for (condition, expected) in cases {
            let response = try await fixture.query(scope, ["recordType": "Item", "filterBy": [condition]])
            #expect(fixture.names(response).sorted() == expected, "\(condition.serializedString)")
        }
    }

    @Test("NEAR filters by distance in metres; relativeLocation sorts by distance")
    func near() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let cupertino: JSONValue = ["latitude": 37.33, "longitude": -122.03]
        var near = filter("place", "NEAR", cupertino)
        if case .object(var members) = near { members["distance"] = 80_000; near = .object(members) }
        let within = try await fixture.query(scope, ["recordType": "Item", "filterBy": [near]])
        #expect(fixture.names(within).sorted() == ["a", "b"], "Cupertino and San Francisco are within 80 km")
        let sorted = try await fixture.query(
            scope,
            [
                "recordType": "Item",
                "sortBy": [["fieldName": "place", "ascending": true, "relativeLocation": ["value": cupertino]]],
            ])
        #expect(fixture.names(sorted) == ["a", "b", "c", "d"])
    }

    @Test("CONTAINS_ALL_TOKENS and CONTAINS_ANY_TOKENS use full-text search, case and accent insensitive")
    func tokens() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let all = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("body", "CONTAINS_ALL_TOKENS", "QUICK fox")]])
        #expect(fixture.names(all) == ["a"])
        let any = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("body", "CONTAINS_ANY_TOKENS", "quick dog")]])
        #expect(fixture.names(any).sorted() == ["a", "b", "c"])
        let accent = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("body", "CONTAINS_ALL_TOKENS", "cafe")]])
        #expect(fixture.names(accent) == ["d"])
        // A record saved after the field became searchable is indexed on write.
        try await fixture.modify(scope, [createOp("e", fields: ["body": "a quick reply"])])
        let again = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("body", "CONTAINS_ALL_TOKENS", "quick")]])
        #expect(fixture.names(again).sorted() == ["a", "c", "e"])
    }

    @Test("sortBy with several keys and system fields")
    func sorting() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let byGenreThenRating = try await fixture.query(
            scope,
            [
                "recordType": "Item",
                "sortBy": [["fieldName": "genre", "ascending": true], ["fieldName": "rating", "ascending": false]],
            ])
        #expect(fixture.names(byGenreThenRating) == ["b", "d", "c", "a"])
        let newest = try await fixture.query(scope, ["recordType": "Item", "sortBy": [["systemFieldName": "createdTimestamp", "ascending": false]]])
        #expect(fixture.names(newest).count == 4)
    }

    @Test("desiredKeys [] returns system fields only")
    func desiredKeysOnQuery() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let response = try await fixture.query(scope, ["recordType": "Item"], extra: ["desiredKeys": []])
        #expect(response["records"]?[0]?["fields"] == nil)
        let some = try await fixture.query(scope, ["recordType": "Item"], extra: ["desiredKeys": ["genre"]])
        #expect(some["records"]?[0]?["fields"]?.objectValue?.keys.sorted() == ["genre"])
    }

    @Test("continuation markers page through results exactly, even with inserts between pages")
    func continuation() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, (0..<25).map { createOp(String(format: "r%02d", $0), fields: ["rank": .int(Int64($0 % 5))]) })
        let query: JSONValue = ["recordType": "Item", "sortBy": [["fieldName": "rank", "ascending": true]]]
        var seen: [String] = []
        var marker: JSONValue?
        var pages = 0
        repeat {
            var extra: [String: JSONValue] = ["resultsLimit": 7]
            if let marker { extra["continuationMarker"] = marker }
            let response = try await fixture.query(scope, query, extra: extra)
            seen += fixture.names(response)
            marker = response["continuationMarker"]
            pages += 1
            if pages == 1 {
                // Inserted before the cursor's position: must not appear; after it: must appear.
                try await fixture.modify(scope, [createOp("a-early", fields: ["rank": 0]), createOp("z-late", fields: ["rank": 4])])
            }
        } while marker != nil && pages < 10
        #expect(pages == 4)
        #expect(Set(seen).count == seen.count, "no record twice")
        #expect(seen.contains("z-late"))
        #expect(!seen.contains("a-early"))
        #expect(seen.count == 26)
    }

    @Test("a tampered or foreign continuation marker is refused")
    func badMarker() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let first = try await fixture.query(scope, ["recordType": "Item"], extra: ["resultsLimit": 1])
        let marker = try #require(first["continuationMarker"]?.stringValue)
        let tampered = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item"], extra: ["continuationMarker": .string("x" + marker)]) }
        #expect(tampered?.code == .badRequest)
        let otherQuery = await cloudKitError {
            _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("genre", "EQUALS", "rock")]], extra: ["continuationMarker": .string(marker)])
        }
        #expect(otherQuery?.reason.contains("different query") == true)
    }

    @Test("production refuses queries on fields that are not indexed, with CloudKit's message")
    func productionIndexEnforcement() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let development = try await fixture.scope()
        try await fixture.modify(development, [createOp("a", fields: ["genre": "rock", "rating": 1])])
        try await fixture.engine.deploySchema(container: fixture.container)
        let production = try await fixture.scope(environment: .production)
        try await fixture.modify(production, [createOp("p", fields: ["genre": "rock", "rating": 1])])
        let queryable = await cloudKitError { _ = try await fixture.query(production, ["recordType": "Item", "filterBy": [filter("genre", "EQUALS", "rock")]]) }
        #expect(queryable?.reason == "Field 'genre' is not marked queryable")
        let sortable = await cloudKitError {
            _ = try await fixture.query(production, ["recordType": "Item", "filterBy": [filter("recordName", "EQUALS", "p", system: true)], "sortBy": [["fieldName": "rating"]]])
        }
        #expect(sortable?.reason == "Field 'recordName' is not marked queryable" || sortable?.reason == "Field 'rating' is not marked sortable")
        let unfiltered = await cloudKitError { _ = try await fixture.query(production, ["recordType": "Item"]) }
        #expect(unfiltered?.reason == "Field 'recordName' is not marked queryable")
        // In development the same queries add the indexes, and after a deploy production answers them.
        _ = try await fixture.query(development, ["recordType": "Item", "filterBy": [filter("genre", "EQUALS", "rock")], "sortBy": [["fieldName": "rating"]]])
        try await fixture.engine.deploySchema(container: fixture.container)
        let answered = try await fixture.query(production, ["recordType": "Item", "filterBy": [filter("genre", "EQUALS", "rock")], "sortBy": [["fieldName": "rating"]]])
        #expect(fixture.names(answered) == ["p"])
    }

    @Test("malformed queries name the problem")
    func malformed() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let badComparator = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("genre", "SIMILAR", "x")]]) }
        #expect(badComparator?.reason.contains("SIMILAR") == true)
        let wrongType = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("rating", "EQUALS", "high")]]) }
        #expect(wrongType?.reason.contains("INT64") == true)
        let listOnScalar = await cloudKitError { _ = try await fixture.query(scope, ["recordType": "Item", "filterBy": [filter("genre", "LIST_CONTAINS", "x")]]) }
        #expect(listOnScalar?.reason.contains("list") == true)
    }
}

@Suite("records/query allTokens")
struct AllTokensTests {
    @Test("allTokens searches every searchable string field")
    func allTokens() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(
            scope,
            [
                createOp("a", fields: ["title": "Blue whale", "notes": "seen at dawn"]),
                createOp("b", fields: ["title": "Red fox", "notes": "a blue collar"]),
                createOp("c", fields: ["title": "Green tree", "notes": "nothing"]),
            ])
        func search(_ comparator: String, _ text: String) async throws -> [String] {
            let response = try await fixture.query(
                scope,
                [
                    "recordType": "Item",
                    "filterBy": [
                        ["fieldName": "allTokens", "comparator": .string(comparator), "fieldValue": ["value": .string(text)]]
                    ],
                ])
            return fixture.names(response).sorted()
        }
        #expect(try await search("CONTAINS_ALL_TOKENS", "blue") == ["a", "b"])
        #expect(try await search("CONTAINS_ANY_TOKENS", "dawn tree") == ["a", "c"])
        let wrong = await cloudKitError { _ = try await search("EQUALS", "blue") }
        #expect(wrong?.reason.contains("allTokens") == true)
    }
}

import StratusEngine
import StratusModel
import StratusWire
import Testing

/// records/count: the number of records the same caller's query returns, counted in the database.
@Suite("records/count")
struct CountRecordsTests {
    /// Every record the caller's query returns, over all pages.
    static func queried(_ fixture: EngineFixture, _ scope: RequestScope, _ query: JSONValue) async throws -> [String] {
        var names: [String] = []
        var marker: JSONValue?
        repeat {
            var extra: [String: JSONValue] = ["resultsLimit": 2]
            if let marker { extra["continuationMarker"] = marker }
            let page = try await fixture.query(scope, query, extra: extra)
            names += fixture.names(page)
            marker = page["continuationMarker"]
        } while marker != nil
        return names
    }

    static func count(_ fixture: EngineFixture, _ scope: RequestScope, _ query: JSONValue) async throws -> Int64? {
        try await fixture.engine.countRecords(scope, body: ["query": query])["count"]?.int64Value
    }

    @Test("counts match the query's filters, groups included, over every page")
    func matchesQuery() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let queries: [JSONValue] = [
            ["recordType": "Item"],
            ["recordType": "Item", "filterBy": [FilterGroupTests.equals("genre", "rock")]],
            ["recordType": "Item", "filterBy": [["anyOf": [FilterGroupTests.equals("genre", "rock"), ["not": FilterGroupTests.equals("genre", "pop")]]]]],
            ["recordType": "Item", "filterBy": [FilterGroupTests.equals("genre", "blues")]],
            ["recordType": "Nothing"],
        ]
        let expected: [Int64] = [5, 2, 4, 0, 0]
        for (query, count) in zip(queries, expected) {
            let queriedCount = try await CountRecordsTests.queried(fixture, scope, query).count
            #expect(try await CountRecordsTests.count(fixture, scope, query) == count, "\(query.serializedString)")
            #expect(Int64(queriedCount) == count, "\(query.serializedString)")
        }
    }

    @Test("anonymous, signed-in and creator-only callers count exactly the records their query returns")
    func permissions() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let container = fixture.container
        let ann = try await fixture.engine.createUser(name: "ann", container: container)
        let bob = try await fixture.engine.createUser(name: "bob", container: container)
        var annScope = try await fixture.scope(user: ann.webAuthToken)
        var bobScope = try await fixture.scope(user: bob.webAuthToken)
        try await fixture.modify(annScope, [createOp("a1", type: "Diary", fields: ["n": 1]), createOp("a2", type: "Diary", fields: ["n": 2])])
        try await fixture.modify(bobScope, [createOp("b1", type: "Diary", fields: ["n": 1])])
        try await fixture.modify(annScope, [createOp("x1", type: "Item", fields: ["n": 1])])
        try await fixture.modify(bobScope, [createOp("x2", type: "Item", fields: ["n": 1])])
        // Diary: only the creator reads; Item keeps CloudKit's defaults (everyone reads).
        let diaryGrants: [(String, Set<RecordPermission>)] = [(BuiltInRole.world, []), (BuiltInRole.authenticated, [.create]), (BuiltInRole.creator, [.read, .write])]
        for (role, permissions) in diaryGrants {
            try await fixture.engine.grant(permissions, on: "Diary", to: role, container: container, environment: .development)
        }
        // Scopes carry the grants they were authenticated with.
        annScope = try await fixture.scope(user: ann.webAuthToken)
        bobScope = try await fixture.scope(user: bob.webAuthToken)
        let anonymous = try await fixture.engine.authenticate(
            container: container, environment: .development, scope: .public,
            credentials: RequestCredentials(apiToken: fixture.apiToken, webAuthToken: nil), signInURL: "http://localhost/signin"
        ).scope
        let developer = try await fixture.scope()
        let callers: [(String, RequestScope, diary: Int64, items: Int64)] = [
            ("anonymous", anonymous, 0, 2), ("ann", annScope, 2, 2), ("bob", bobScope, 1, 2), ("developer", developer, 3, 2),
        ]
        for (name, scope, diary, items) in callers {
            for (type, expected) in [("Diary", diary), ("Item", items)] {
                let query: JSONValue = ["recordType": .string(type)]
                let returned = try await CountRecordsTests.queried(fixture, scope, query).count
                let counted = try await CountRecordsTests.count(fixture, scope, query)
                #expect(Int64(returned) == expected, "\(name) queried \(type)")
                #expect(counted == expected, "\(name) counted \(type)")
                let filtered: JSONValue = ["recordType": .string(type), "filterBy": [["anyOf": [FilterGroupTests.equals("n", 1), FilterGroupTests.equals("n", 2)]]]]
                #expect(try await CountRecordsTests.count(fixture, scope, filtered) == Int64(try await CountRecordsTests.queried(fixture, scope, filtered).count))
            }
        }
    }

    @Test("bad count bodies are a BAD_REQUEST naming the problem; production needs the indexes")
    func badInput() async throws {
        let (fixture, scope) = try await FilterGroupTests.seeded()
        defer { Task { await fixture.close() } }
        let missing = await cloudKitError { _ = try await fixture.engine.countRecords(scope, body: ["zoneWide": true]) }
        #expect(missing?.code == .badRequest)
        #expect(missing?.reason.contains("query") == true)
        let badGroup = await cloudKitError { _ = try await fixture.engine.countRecords(scope, body: ["query": ["recordType": "Item", "filterBy": [["not": []]]]]) }
        #expect(badGroup?.reason.contains("query.filterBy[0].not") == true)
        try await fixture.engine.deploySchema(container: fixture.container)
        let production = try await fixture.scope(environment: .production)
        let unindexed = await cloudKitError {
            _ = try await fixture.engine.countRecords(production, body: ["query": ["recordType": "Item", "filterBy": [FilterGroupTests.equals("mood", "x")]]])
        }
        #expect(unindexed?.code == .badRequest)
    }
}

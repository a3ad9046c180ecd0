import StratusEngine
import StratusModel
import Testing

/// records/lookup and records/query through the engine's typed API: requests built in code,
/// results read as records, no CKWS JSON on either side (the wire tests cover the JSON shapes).
@Suite("typed record reads")
struct TypedRecordReadsTests {
    /// Four Items saved through the wire (the only way records are written today).
    private func seeded() async throws -> (EngineFixture, RequestScope) {
        let fixture = try await EngineFixture.make()
        let scope = try await fixture.scope()
        try await fixture.modify(
            scope,
            [
                createOp("a", fields: ["genre": "rock", "rating": 5, "tags": ["red", "blue"]]),
                createOp("b", fields: ["genre": "jazz", "rating": 3, "tags": ["green"]]),
                createOp("c", fields: ["genre": "rock", "rating": 9, "tags": ["red"]]),
                createOp("d", fields: ["genre": "pop", "rating": 1, "tags": ["blue"]]),
            ])
        return (fixture, scope)
    }

    private func query(
        _ filters: [RecordQuery.Filter], sorts: [RecordQuery.Sort] = [], limit: Int = 200,
        marker: String? = nil
    ) -> RecordQuery {
        RecordQuery(
            recordType: "Item", filters: filters, sorts: sorts, limit: limit, continuationMarker: marker,
            fingerprint: Array("typed-test".utf8))
    }

    @Test("lookup answers each name in order: the record with typed fields, or NOT_FOUND")
    func lookup() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let fetched = try await fixture.engine.lookup(scope, RecordLookup(recordNames: ["c", "missing", "a"]))
        #expect(fetched.results.count == 3)
        let c = try fetched.results[0].get()
        #expect(c.recordName == "c" && c.recordType == "Item")
        #expect(c.string("genre") == "rock")
        #expect(c.int64("rating") == 9)
        #expect(c.list("tags") == [.string("red")])
        #expect(c.string("rating") == nil, "a field read as the wrong type is absent, not coerced")
        guard case .failure(let missing) = fetched.results[1] else {
            Issue.record("a missing record was found")
            return
        }
        #expect(missing.code == .notFound)
        #expect(try fetched.results[2].get().int64("rating") == 5)
    }

    @Test("lookup in a zone that does not exist fails the whole request with ZONE_NOT_FOUND")
    func lookupMissingZone() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let scope = try await fixture.scope(.private, user: user.webAuthToken)
        let error = await cloudKitError {
            _ = try await fixture.engine.lookup(scope, RecordLookup(zoneID: ZoneID(zoneName: "Nowhere"), recordNames: ["x"]))
        }
        #expect(error?.code == .zoneNotFound)
    }

    @Test("query with typed filter values and a sort, paged by continuation markers")
    func queryPages() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let atLeastThree = RecordQuery.Filter(
            field: .named("rating"), comparator: .greaterThanOrEquals,
            value: RequestValue(.int64(3)), path: "filter")
        let byRating = RecordQuery.Sort(field: .named("rating"), ascending: false, path: "sort")
        var names: [String] = []
        var marker: String?
        var pages = 0
        repeat {
            let page = try await fixture.engine.query(scope, query([atLeastThree], sorts: [byRating], limit: 1, marker: marker))
            names += page.records.map(\.recordName)
            marker = page.continuationMarker
            pages += 1
        } while marker != nil && pages < 10
        #expect(names == ["c", "a", "b"])
    }

    @Test("list and set comparators take typed values")
    func listComparators() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let inJazzOrPop = RecordQuery.Filter(
            field: .named("genre"), comparator: .in,
            value: RequestValue(.list(.string, [.string("jazz"), .string("pop")])), path: "f")
        #expect(try await fixture.engine.query(scope, query([inJazzOrPop])).records.map(\.recordName).sorted() == ["b", "d"])
        let taggedRed = RecordQuery.Filter(field: .named("tags"), comparator: .listContains, value: RequestValue(.string("red")), path: "f")
        #expect(try await fixture.engine.query(scope, query([taggedRed])).records.map(\.recordName).sorted() == ["a", "c"])
    }

    @Test("a typed value of the wrong type for its field is BAD_REQUEST naming the filter")
    func wrongValueType() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let wrong = RecordQuery.Filter(
            field: .named("rating"), comparator: .equals, value: RequestValue(.string("five"), path: "ratingFilter"),
            path: "ratingFilter")
        let error = await cloudKitError { _ = try await fixture.engine.query(scope, query([wrong])) }
        #expect(error?.code == .badRequest)
        #expect(error?.reason.contains("ratingFilter") == true)
        #expect(error?.reason.contains("INT64") == true)
    }

    @Test("a marker from one query does not resume another")
    func markerBoundToQuery() async throws {
        let (fixture, scope) = try await seeded()
        defer { Task { await fixture.close() } }
        let first = try await fixture.engine.query(scope, query([], limit: 1))
        let marker = try #require(first.continuationMarker)
        var other = query([], limit: 1, marker: marker)
        other.fingerprint = Array("another query".utf8)
        let error = await cloudKitError { _ = try await fixture.engine.query(scope, other) }
        #expect(error?.code == .badRequest)
        #expect(error?.reason.contains("different query") == true)
    }
}

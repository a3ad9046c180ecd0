import Foundation
import HTTPTypes
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// Every request reaches the observers exactly once, with what the client saw (status, request
/// UUID, error code) and what the server learnt (operation, database, an anonymised caller), on
/// the fast path for database requests and on the router.
@Suite struct RequestObserverTests {
    static func configuration(_ collector: SummaryCollector, burst: Double = 500) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.requestObservers = [collector]
        configuration.rateLimits = RateLimitConfiguration(perSecond: 0.001, burst: burst)
        return configuration
    }

    @Test func databaseRequestsAreSummarisedWithTheirOperationDatabaseAndCaller() async throws {
        let collector = SummaryCollector()
        try await RouterFixture.run(configuration: Self.configuration(collector)) { fixture, client in
            let created = try await client.call(fixture.path("records/modify"), json: createBody(["n1"]))
            #expect(created.status == 200)
            let queried = try await client.call(
                fixture.path("records/query", environment: "production"),
                body: #"{"query": {"recordType": "Nobody"}}"#)
            let summaries = collector.all
            try #require(summaries.count == 2)
            let modify = summaries[0]
            #expect(modify.operation == .modify)
            #expect(modify.endpoint == "records/modify")
            #expect(modify.container == RouterFixture.container)
            #expect(modify.database == .public)
            #expect(modify.environment == .development)
            #expect(modify.status == 200)
            #expect(modify.serverErrorCode == nil)
            #expect(modify.uuid == created.headers[HTTPField.Name("X-Apple-Request-UUID")!])
            #expect(modify.latency > .zero)
            let caller = try #require(modify.caller)
            #expect(caller.count == 16 && caller.allSatisfy(\.isHexDigit))
            #expect(!caller.contains(fixture.writer.userRecordName) && !caller.contains(fixture.apiToken))

            let query = summaries[1]
            #expect(query.operation == .query)
            #expect(query.environment == .production)
            #expect(query.status == queried.status)
            #expect(query.caller == caller, "one user's requests share one caller id")
        }
    }

    @Test func errorsCarryTheCodeAndUUIDTheClientSaw() async throws {
        let collector = SummaryCollector()
        try await RouterFixture.run(configuration: Self.configuration(collector)) { fixture, client in
            let refused = try await client.call(
                fixture.path("records/query", apiToken: "not-a-token"),
                body: #"{"query": {"recordType": "Note"}}"#)
            let badPath = try await client.call("/database/1/\(RouterFixture.container)/staging/public/records/query?ckAPIToken=\(fixture.apiToken)", body: "{}")
            let summaries = collector.all
            try #require(summaries.count == 2)
            #expect(summaries[0].status == refused.status && refused.status == 401)
            #expect(summaries[0].serverErrorCode == "AUTHENTICATION_FAILED")
            #expect(summaries[0].uuid == refused.json["uuid"]?.stringValue)
            #expect(summaries[0].caller == nil, "nobody authenticated")
            #expect(summaries[0].operation == .query)
            #expect(summaries[1].serverErrorCode == "BAD_REQUEST")
            #expect(summaries[1].uuid == badPath.json["uuid"]?.stringValue)
            #expect(summaries[1].operation == .other && summaries[1].environment == nil)
        }
    }

    @Test func aThrottledRequestIsSummarisedAsThrottled() async throws {
        let collector = SummaryCollector()
        try await RouterFixture.run(configuration: Self.configuration(collector, burst: 1)) { fixture, client in
            _ = try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#)
            let throttled = try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#)
            #expect(throttled.status == 429)
            let last = try #require(collector.all.last)
            #expect(collector.all.count == 2)
            #expect(last.status == 429 && last.serverErrorCode == "THROTTLED" && last.operation == .query)
        }
    }

    @Test func routerRequestsAreSummarisedToo() async throws {
        let collector = SummaryCollector()
        try await RouterFixture.run(configuration: Self.configuration(collector)) { fixture, client in
            _ = try await client.call("/health", method: .get)
            _ = try await client.execute(uri: "/signin?container=\(RouterFixture.container)", method: .get) { _ in }
            _ = try await client.call("/webcourier/1/no-such-key", method: .get)
            _ = try await client.call("/nowhere", method: .get)
            let summaries = collector.all
            try #require(summaries.count == 4)
            #expect(summaries.map(\.operation) == [.other, .signIn, .courier, .other])
            #expect(summaries.map(\.endpoint) == ["/health", "/signin", "/webcourier", "other"])
            #expect(summaries.map(\.status) == [200, 200, 404, 404])
            #expect(summaries[3].serverErrorCode == "NOT_FOUND")
            #expect(Set(summaries.map(\.uuid)).count == 4)
        }
    }

    @Test func callersGetDistinctStableIDsUnderOneKey() {
        let anonymizer = CallerAnonymizer(key: Array(repeating: 1, count: 32))
        #expect(anonymizer.id(for: "user:a|_u1") == anonymizer.id(for: "user:a|_u1"))
        #expect(anonymizer.id(for: "user:a|_u1") != anonymizer.id(for: "user:a|_u2"))
        #expect(
            CallerAnonymizer(key: Array(repeating: 2, count: 32)).id(for: "user:a|_u1") != anonymizer.id(for: "user:a|_u1"),
            "another key, another id: the id cannot be recomputed without the key")
    }
}

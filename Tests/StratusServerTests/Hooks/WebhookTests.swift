import Foundation
import Logging
import StratusEngine
import StratusServer
import StratusTestSupport
import StratusModel
import Testing

/// Webhooks: a container's record changes POSTed, signed, to a real receiver on loopback, from the
/// hook outbox (retried on failure, in commit order per record).
@Suite("Webhooks")
struct WebhookTests {
    static func add(
        _ fixture: RouterFixture, _ receiver: WebhookReceiver, types: [String] = ["Order"], events: Set<RecordChangeKind> = [.create, .update, .delete]
    ) async throws -> WebhookRow {
        let webhook = try await fixture.engine.addWebhook(
            container: RouterFixture.container, environment: nil, url: receiver.url, recordTypes: types, events: events, databases: [.public],
            privateData: false)
        receiver.secret.withLock { $0 = webhook.secret }
        return webhook
    }

    @Test("a change is delivered once, signed, with the record as committed; other record types are not")
    func signedDelivery() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        try await RouterFixture.run { fixture, client in
            let webhook = try await Self.add(fixture, receiver)
            try await AfterHookTests.withRunner(fixture) {
                let saved = try await client.call(fixture.path("records/modify"), json: createBody(["o1"], type: "Order"))
                _ = try await client.call(fixture.path("records/modify"), json: createBody(["n1"], type: "Note"))
                #expect(try await AfterHookTests.drained(fixture))
            }
            let deliveries = receiver.deliveries
            #expect(receiver.refused.withLock { $0 }.isEmpty, "every signature checked out")
            #expect(deliveries.count == 1)
            let body = try #require(deliveries.first?.body)
            #expect(body["webhook"]?.stringValue == webhook.id)
            #expect(body["event"] == "create")
            #expect(body["recordName"] == "o1")
            #expect(body["database"] == "public")
            #expect(body["record"]?["fields"]?["title"]?["value"] == "title of o1")
            #expect(body["id"]?.stringValue == deliveries.first?.eventHeader)
        }
    }

    @Test("a receiver answering 500 gets the same event again with backoff until it accepts")
    func retriedOnServerErrors() async throws {
        let receiver = try await WebhookReceiver.start(failFirst: 2)
        defer { receiver.stop() }
        try await RouterFixture.run { fixture, client in
            _ = try await Self.add(fixture, receiver)
            try await AfterHookTests.withRunner(fixture) {
                _ = try await client.call(fixture.path("records/modify"), json: createBody(["o"], type: "Order"))
                #expect(try await AfterHookTests.drained(fixture, seconds: 20))
            }
            let deliveries = receiver.deliveries
            #expect(deliveries.count == 1)
            #expect(deliveries.first?.body["attempt"] == 3, "two 500s, then accepted")
        }
    }

    @Test("a receiver that cannot be reached keeps the event queued, retried")
    func unreachableReceiverIsRetried() async throws {
        try await RouterFixture.run { fixture, client in
            // A port nothing listens on: the connection is refused.
            _ = try await fixture.engine.addWebhook(
                container: RouterFixture.container, environment: nil, url: "http://127.0.0.1:9/hook", recordTypes: [], events: [.create],
                databases: [.public], privateData: false)
            try await AfterHookTests.withRunner(fixture) {
                _ = try await client.call(fixture.path("records/modify"), json: createBody(["o"], type: "Order"))
                // A refused connection fails after the 2 s connect timeout; the retry comes 1 s later.
                try await Task.sleep(for: .seconds(4))
            }
            let depth = try await fixture.engine.storage.read { reader in try await reader.hookOutboxDepth() }
            #expect(depth.pending == 1, "not dropped, not failed yet")
            let attempts = try await fixture.engine.storage.write { writer in
                try await writer.claimHookEvents(holder: "test", nowMilliseconds: Int64.max / 2, leaseUntil: Int64.max / 2, limit: 1, excludingKeys: [])
            }
            #expect((attempts.first?.attempts ?? 0) >= 2, "it was tried and retried")
            #expect(attempts.first?.lastError.contains("127.0.0.1:9") == true, "\(attempts.first?.lastError ?? "none")")
        }
    }

    @Test("a record's changes arrive in commit order")
    func orderPerRecord() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        try await RouterFixture.run { fixture, client in
            _ = try await Self.add(fixture, receiver, types: ["Doc"])
            try await AfterHookTests.withRunner(fixture) {
                for version in 1...5 {
                    let operation: JSONValue = [
                        "operationType": "forceUpdate", "record": ["recordName": "d", "recordType": "Doc", "fields": ["v": ["value": .int(Int64(version))]]],
                    ]
                    _ = try await client.call(fixture.path("records/modify"), json: ["operations": [operation]])
                }
                #expect(try await AfterHookTests.drained(fixture))
            }
            #expect(receiver.deliveries.map { $0.body["record"]?["fields"]?["v"]?["value"] } == [1, 2, 3, 4, 5])
        }
    }

    // A SQLite database serves one process, whose outbox runner releases every lease at start;
    // several instances share one database on PostgreSQL.
    @Test(
        "three instances on one PostgreSQL database deliver each event once",
        .enabled(if: TestBackend.isPostgres, "several instances share a database on PostgreSQL only"))
    func threeInstancesDeliverOnce() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        try await RouterFixture.run { fixture, client in
            _ = try await Self.add(fixture, receiver)
            var quiet = Logger(label: "webhook-instances")
            quiet.logLevel = .critical
            let logger = quiet
            // Each engine is an instance of its own (its own lease holder) on the same database.
            let engines = [fixture.engine] + (0..<2).map { _ in Engine(storage: fixture.storage, secret: Array(repeating: 7, count: 32), logger: logger) }
            let runners = engines.map { engine in
                Task { try await HookOutboxRunner(engine: engine, pollInterval: .milliseconds(20), logger: logger).run() }
            }
            defer { for runner in runners { runner.cancel() } }
            for batch in 0..<3 {
                _ = try await client.call(fixture.path("records/modify"), json: createBody((0..<10).map { "o-\(batch)-\($0)" }, type: "Order"))
            }
            #expect(try await AfterHookTests.drained(fixture))
            let ids = receiver.deliveries.map(\.eventHeader)
            #expect(ids.count == 30, "one delivery per change")
            #expect(Set(ids).count == 30)
            #expect(Set(receiver.deliveries.compactMap { $0.body["recordName"]?.stringValue }).count == 30)
        }
    }

    @Test("private data needs --private-data; a bad URL is refused with what to give")
    func addingIsChecked() async throws {
        try await RouterFixture.run { fixture, _ in
            await #expect(throws: CloudKitError.self) {
                _ = try await fixture.engine.addWebhook(
                    container: RouterFixture.container, environment: nil, url: "https://example.com/h", recordTypes: [], events: [.create],
                    databases: [.private], privateData: false)
            }
            do {
                _ = try await fixture.engine.addWebhook(
                    container: RouterFixture.container, environment: nil, url: "https://example.com/h", recordTypes: [], events: [.create],
                    databases: [.shared], privateData: false)
                Issue.record("a shared-database webhook was added without --private-data")
            } catch let error as CloudKitError {
                #expect(error.reason.contains("--private-data"))
            }
            do {
                _ = try await fixture.engine.addWebhook(
                    container: RouterFixture.container, environment: nil, url: "ftp://example.com", recordTypes: [], events: [.create],
                    databases: [.public], privateData: false)
                Issue.record("an ftp URL was accepted")
            } catch let error as CloudKitError {
                #expect(error.code == .badRequest && error.reason.contains("http or https"))
            }
            #expect(try await fixture.engine.webhooks(container: RouterFixture.container).isEmpty, "nothing was added")
        }
    }
}

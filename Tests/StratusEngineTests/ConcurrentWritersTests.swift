import Foundation
import Logging
import StratusEngine
import StratusWire
import StratusModel
import StratusTestSupport
import Synchronization
import Testing

/// Two engines on one database, as two server instances are: every guarantee the engine gives
/// one process (exact change-tag conflicts, create-if-absent, unique change tags, change feeds
/// that deliver each change once, schema changes that merge) must hold across them.
private struct TwoInstances {
    let engines: [Engine]
    let close: @Sendable () async -> Void
    let listeners: [Task<Void, Never>]
    let folder: URL
    let container = "iCloud.test.Concurrent"
    let apiToken: String

    static func make() async throws -> TwoInstances {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let (first, second, close) = try await TestBackend.openTwo(folder: folder, logger: logger)
        let engines = [first, second].map { Engine(storage: $0, secret: Array(repeating: 5, count: 32), logger: logger) }
        // Each instance hears the other's events, as `stratus serve` does on PostgreSQL.
        let listeners = zip([first, second], engines).compactMap { storage, engine in
            TestBackend.listen(storage, logger: logger) { engine.apply($0) }
        }
        let token = try await engines[0].createContainer("iCloud.test.Concurrent")
        return TwoInstances(engines: engines, close: close, listeners: listeners, folder: folder, apiToken: token)
    }

    func shutDown() async {
        for listener in listeners { listener.cancel() }
        await close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The same caller as seen by each engine (developer in public, the user in private).
    func scopes(_ database: DatabaseScope, user: String? = nil) async throws -> [RequestScope] {
        var scopes: [RequestScope] = []
        for engine in engines {
            let scope = try await engine.authenticate(
                container: container, environment: .development, scope: database,
                credentials: RequestCredentials(apiToken: apiToken, webAuthToken: user),
                signInURL: "http://localhost/signin"
            ).scope
            scopes.append(user == nil ? RequestScope(store: scope.store, caller: scope.caller) : scope)
        }
        return scopes
    }

    func modify(_ index: Int, _ scope: RequestScope, _ operations: [JSONValue], zone: String? = nil) async throws -> [JSONValue] {
        var body: [String: JSONValue] = ["operations": .array(operations)]
        if let zone { body["zoneID"] = ["zoneName": .string(zone)] }
        return try await engines[index % 2].modifyRecords(scope, body: .object(body))["records"]?.arrayValue ?? []
    }
}

private func update(_ name: String, tag: String, value: Int64) -> JSONValue {
    [
        "operationType": "update",
        "record": [
            "recordName": .string(name), "recordType": "Item", "recordChangeTag": .string(tag),
            "fields": ["v": ["value": .int(value)]],
        ],
    ]
}

@Suite("concurrent writers on one database")
struct ConcurrentWritersTests {
    @Test(
        "of concurrent updates carrying the same change tag exactly one wins, in public and private databases",
        arguments: [DatabaseScope.public, .private])
    func oneUpdateWins(database: DatabaseScope) async throws {
        let two = try await TwoInstances.make()
        let user = try await two.engines[0].createUser(name: "ann", container: two.container)
        let scopes = try await two.scopes(database, user: database == .private ? user.webAuthToken : nil)
        let created = try await two.modify(0, scopes[0], [createOp("contested", fields: ["v": 0])])
        let tag = try #require(created.first?["recordChangeTag"]?.stringValue)
        let outcomes = try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            for attempt in 0..<8 {
                group.addTask { try await two.modify(attempt, scopes[attempt % 2], [update("contested", tag: tag, value: Int64(attempt + 1))]).first }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.filter { $0?["serverErrorCode"] == nil }
        #expect(winners.count == 1, "exactly one update wins: \(outcomes.map { $0?["serverErrorCode"]?.stringValue ?? "saved" })")
        #expect(outcomes.filter { $0?["serverErrorCode"]?.stringValue == "CONFLICT" }.count == 7)
        let stored = try await two.engines[1].lookupRecords(scopes[1], body: ["records": [["recordName": "contested"]]])
        #expect(stored["records"]?[0]?["fields"]?["v"]?["value"] == winners.first??["fields"]?["v"]?["value"], "the winner's value is stored")
        await two.shutDown()
    }

    @Test("of concurrent creates of one new record exactly one succeeds", arguments: [DatabaseScope.public, .private])
    func oneCreateWins(database: DatabaseScope) async throws {
        let two = try await TwoInstances.make()
        let user = try await two.engines[0].createUser(name: "ann", container: two.container)
        let scopes = try await two.scopes(database, user: database == .private ? user.webAuthToken : nil)
        let outcomes = try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            for attempt in 0..<8 {
                group.addTask { try await two.modify(attempt, scopes[attempt % 2], [createOp("fresh", fields: ["v": .int(Int64(attempt))])]).first }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            outcomes.filter { $0?["serverErrorCode"] == nil }.count == 1,
            "one create succeeds: \(outcomes.map { $0?["serverErrorCode"]?.stringValue ?? "saved" })")
        await two.shutDown()
    }

    @Test("writers on both instances get unique change tags, and a change feed paged meanwhile delivers each record once")
    func uniqueTagsAndExactFeed() async throws {
        let two = try await TwoInstances.make()
        let user = try await two.engines[0].createUser(name: "ann", container: two.container)
        let scopes = try await two.scopes(.private, user: user.webAuthToken)
        _ = try await two.engines[0].modifyZones(scopes[0], body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let writers = Task {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var tags: [String] = []
                        for round in 0..<10 {
                            let saved = try await two.modify(writer, scopes[writer % 2], [createOp("w\(writer)-\(round)", fields: ["v": 1])], zone: "Notes")
                            tags += saved.compactMap { $0["recordChangeTag"]?.stringValue }
                        }
                        return tags
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        var seen: [String: Int] = [:]
        var token: JSONValue?
        var writersDone = false
        for round in 0..<400 {
            var zone: [String: JSONValue] = ["zoneID": ["zoneName": "Notes"], "resultsLimit": 3]
            if let token { zone["syncToken"] = token }
            let page = try await two.engines[round % 2].zoneChanges(scopes[round % 2], body: ["zones": [.object(zone)]])["zones"]?[0]
            for record in page?["records"]?.arrayValue ?? [] { seen[record["recordName"]?.stringValue ?? "?", default: 0] += 1 }
            token = page?["syncToken"]
            if page?["moreComing"] != .bool(true) {
                if writersDone { break }
                writersDone = seen.count == 40
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let tags = try await writers.value
        #expect(tags.count == 40)
        #expect(Set(tags).count == 40, "change tags are unique across instances")
        #expect(seen.count == 40, "every record delivered: \(seen.count)")
        #expect(seen.values.allSatisfy { $0 == 1 }, "none twice: \(seen.filter { $0.value > 1 })")
        await two.shutDown()
    }

    @Test("one instance at a time runs a background job, at its interval; another takes over once the lease lapses")
    func jobLeases() async throws {
        let two = try await TwoInstances.make()
        let (first, second) = (two.engines[0], two.engines[1])
        #expect(try await first.runJobIfDue("compact", every: 3600) {})
        #expect(try await !second.runJobIfDue("compact", every: 3600) {}, "the first instance holds the lease")
        #expect(try await !first.runJobIfDue("compact", every: 3600) {}, "not due again within its interval")
        // A lease the other instance asks within even on a loaded machine…
        #expect(try await first.runJobIfDue("held", every: 0, lease: 30) {})
        #expect(try await !second.runJobIfDue("held", every: 0, lease: 30) {}, "refused while the holder's lease runs")
        // …and one that lapses: once the holder stops renewing it, the other instance takes it.
        #expect(try await first.runJobIfDue("lapsing", every: 0, lease: 1) {})
        let clock = ContinuousClock(), lapsed = clock.now
        var takenOver = false
        while !takenOver, clock.now - lapsed < .seconds(30) {
            takenOver = try await second.runJobIfDue("lapsing", every: 0, lease: 1) {}
            if !takenOver { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(takenOver, "taken over after the holder stopped renewing")
        await two.shutDown()
    }

    /// PostgreSQL instances hear the revocation at once; a SQLite server hears a command's
    /// revocation when its credential cache expires (2 s). The deadline leaves room for a loaded
    /// machine; without either mechanism the token would be accepted for good.
    @Test("an API token revoked through one instance is refused by the other within seconds")
    func revocationReachesTheOtherInstance() async throws {
        let two = try await TwoInstances.make()
        let authenticate: @Sendable (Engine) async throws -> Void = { engine in
            _ = try await engine.authenticate(
                container: two.container, environment: .development, scope: .public,
                credentials: RequestCredentials(apiToken: two.apiToken), signInURL: "http://localhost/signin")
        }
        try await authenticate(two.engines[1]) // now cached by the second instance
        try await two.engines[0].revokeAPIToken(container: two.container, idOrToken: two.apiToken)
        let clock = ContinuousClock()
        let revoked = clock.now
        let refused = try await eventually { await cloudKitError({ try await authenticate(two.engines[1]) }) != nil }
        #expect(refused, "the second instance still accepts the revoked token \(clock.now - revoked) after the revocation")
        await two.shutDown()
    }

    /// Only PostgreSQL serves from several processes (a SQLite folder has one server). Without
    /// the event the courier would wait out its whole 30 s poll and return nothing.
    @Test(
        "a courier waiting on one instance wakes for a frame a write on the other queued",
        .postgresOnly)
    func courierWakesAcrossInstances() async throws {
        let two = try await TwoInstances.make()
        let user = try await two.engines[0].createUser(name: "ann", container: two.container)
        let scopes = try await two.scopes(.private, user: user.webAuthToken)
        let created = try await two.engines[0].createPushToken(scopes[0], body: ["apnsEnvironment": "development"])
        _ = try await two.engines[0].registerPushToken(scopes[0], body: ["apnsEnvironment": "development", "apnsToken": created["apnsToken"]!])
        let courierKey = String(try #require(created["webcourierURL"]?.stringValue).dropFirst(Engine.webCourierPathPrefix.count))
        _ = try await two.engines[0].modifySubscriptions(
            scopes[0],
            body: [
                "operations": [
                    [
                        "operationType": "create",
                        "subscription": [
                            "subscriptionID": "everything", "subscriptionType": "database", "firesOn": ["create", "update", "delete"],
                        ],
                    ]
                ]
            ])
        let clock = ContinuousClock()
        let waiting = Task { try await two.engines[1].pollWebCourier(courierKey: courierKey, timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(300)) // the courier is waiting on the second instance
        let written = clock.now
        _ = try await two.modify(0, scopes[0], [createOp("ping", fields: ["v": 1])])
        let frame = try await waiting.value
        let waited = clock.now - written
        #expect(frame != nil, "a frame arrived")
        #expect(waited < .seconds(20), "woke after \(waited), before its poll ran out")
        await two.shutDown()
    }

    @Test("just-in-time schema changes from both instances at once lose no field")
    func schemaChangesMerge() async throws {
        let two = try await TwoInstances.make()
        let scopes = try await two.scopes(.public)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for field in 0..<8 {
                group.addTask {
                    _ = try await two.modify(field, scopes[field % 2], [createOp("r\(field)", type: "Grown", fields: ["f\(field)": "x"])])
                }
            }
            try await group.waitForAll()
        }
        for engine in two.engines { engine.invalidateSchema(container: two.container, environment: .development) }
        let schema = try await two.engines[1].exportSchema(container: two.container, environment: .development)
        for field in 0..<8 { #expect(schema.contains("f\(field)"), "field f\(field) is in the schema:\n\(schema)") }
        await two.shutDown()
    }

    /// The console's live tail asks for log rows above the newest id it has. With two instances
    /// writing their journals at once, an id handed out by one transaction that commits after a
    /// higher id from the other would never be shown; rollups both add to must not deadlock.
    @Test("a live tail of the request journal misses no row while both instances write theirs")
    func journalTailMissesNothingAcrossInstances() async throws {
        let two = try await TwoInstances.make()
        let minute = Int64(Date().timeIntervalSince1970 / 60)
        let keys = (0..<20).map { RequestRollup(minute: minute, operation: "query", database: "public", statusClass: 2, errorCode: "E\($0)", count: 1) }
        let batches = 40, rowsPerBatch = 5
        let writing = WritersLeft(2)
        let writers = (0..<2).map { instance in
            Task {
                defer { writing.count.subtract(1, ordering: .releasing) }
                for batch in 0..<batches {
                    let rows = (0..<rowsPerBatch).map { row in
                        RequestLogEntry(
                            atMilliseconds: 0, uuid: "\(instance)-\(batch)-\(row)", operation: "query", endpoint: "records/query",
                            container: two.container, database: "public", environment: "development", caller: "",
                            status: 200, latencyMicroseconds: 1, errorCode: "")
                    }
                    // Opposite orders, as two buffers' dictionaries may give them.
                    try await two.engines[instance].recordRequests(log: rows, rollups: instance == 0 ? keys : keys.reversed())
                }
            }
        }
        var seen: [String] = [], newest: Int64 = 0
        func readTail() async throws {
            let rows = try await two.engines[1].requestLog(RequestLogFilter(afterID: newest, limit: 10_000))
            seen += rows.map(\.uuid)
            newest = rows.map(\.id).max() ?? newest
        }
        while writing.count.load(ordering: .acquiring) > 0 { try await readTail() }
        for writer in writers { try await writer.value }
        try await readTail()
        #expect(seen.count == 2 * batches * rowsPerBatch, "the tail saw \(seen.count) rows of \(2 * batches * rowsPerBatch)")
        #expect(Set(seen).count == seen.count, "no row twice")
        let rollups = try await two.engines[0].requestRollups(fromMinute: minute)
        #expect(rollups.map(\.count) == Array(repeating: Int64(2 * batches), count: keys.count), "every batch added to every rollup")
        await two.shutDown()
    }
}

/// How many writer tasks are still running, for a reader that polls until they are done.
private final class WritersLeft: Sendable {
    let count: Atomic<Int>
    init(_ count: Int) { self.count = Atomic(count) }
}

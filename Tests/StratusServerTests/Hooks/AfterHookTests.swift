import Foundation
import Logging
import StratusEngine
import StratusModel
import StratusServer
import Synchronization
import Testing

/// afterSave and afterDelete hooks: queued in the write's transaction, run by the outbox runner
/// after the commit, in commit order per record, retried when they fail, and not run again by
/// their own writes.
@Suite("After hooks")
struct AfterHookTests {
    /// What hooks saw, in the order they saw it.
    final class Ledger: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Runs `body` with the outbox runner draining in the background.
    static func withRunner(_ fixture: RouterFixture, _ body: () async throws -> Void) async throws {
        var logger = Logger(label: "hooks-test")
        logger.logLevel = .critical
        let runner = HookOutboxRunner(engine: fixture.engine, pollInterval: .milliseconds(20), logger: logger)
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        try await body()
    }

    /// Waits until the outbox is empty (every queued event ran), at most `seconds`.
    static func drained(_ fixture: RouterFixture, seconds: Double = 30) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let depth = try await fixture.engine.storage.read { reader in try await reader.hookOutboxDepth() }
            if depth.pending == 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test("an after-save hook keeps a counter exact under 8 concurrent writers")
    func counterUnderConcurrentWriters() async throws {
        var hooks = RecordHooks()
        hooks.afterSave(HookSelector("Vote")) { event, context in
            guard event.kind == .create else { return }
            let database = context.asDeveloper
            while true {
                let tally = try await database.record("tally")
                do {
                    try await database.save(
                        "tally", type: "Tally", fields: ["votes": .int64((tally?.int64("votes") ?? 0) + 1)], changeTag: tally?.changeTag)
                    return
                } catch let error as CloudKitError where error.code == .conflict || error.code == .exists {
                    continue
                }
            }
        }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            try await Self.withRunner(fixture) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<8 {
                        group.addTask {
                            for vote in 0..<5 {
                                let answer = try await client.call(fixture.path("records/modify"), json: createBody(["vote-\(writer)-\(vote)"], type: "Vote"))
                                #expect(answer.json.record(0)?["recordType"] == "Vote")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await Self.drained(fixture))
                let tally = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "tally"]]])
                #expect(tally.json.record(0)?["fields"]?["votes"]?["value"] == 40)
            }
        }
    }

    @Test("a record's events run in commit order, each after its commit, with the committed record")
    func commitOrderPerRecord() async throws {
        let ledger = Ledger()
        var hooks = RecordHooks()
        hooks.afterSave(HookSelector("Doc")) { event, _ in
            // A slower first event would let a later one overtake it if order were not kept.
            if event.record.int64("version") == 1 { try await Task.sleep(for: .milliseconds(200)) }
            ledger.add("\(event.record.recordName):\(event.record.int64("version") ?? -1):\(event.kind.rawValue)")
        }
        hooks.afterDelete(HookSelector("Doc")) { event, _ in
            ledger.add("\(event.record.recordName):\(event.record.int64("version") ?? -1):\(event.kind.rawValue)")
        }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            try await Self.withRunner(fixture) {
                for version in 1...5 {
                    let operation: JSONValue = [
                        "operationType": "forceUpdate", "record": ["recordName": "d", "recordType": "Doc", "fields": ["version": ["value": .int(Int64(version))]]],
                    ]
                    _ = try await client.call(fixture.path("records/modify"), json: ["operations": [operation]])
                }
                _ = try await client.call(fixture.path("records/modify"), json: ["operations": [["operationType": "forceDelete", "record": ["recordName": "d"]]]])
                #expect(try await Self.drained(fixture))
                #expect(ledger.all == ["d:1:create", "d:2:update", "d:3:update", "d:4:update", "d:5:update", "d:5:delete"])
            }
        }
    }

    @Test("a hook's own writes do not run it again")
    func noRetrigger() async throws {
        let ledger = Ledger()
        var hooks = RecordHooks()
        hooks.afterSave(HookSelector("Echo")) { event, context in
            ledger.add(event.record.recordName)
            try await context.asDeveloper.save("copy-of-\(event.record.recordName)", type: "Echo", fields: [:], force: true)
        }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            try await Self.withRunner(fixture) {
                _ = try await client.call(fixture.path("records/modify"), json: createBody(["x"], type: "Echo"))
                #expect(try await Self.drained(fixture))
                try await Task.sleep(for: .milliseconds(200))
                #expect(ledger.all == ["x"])
                let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "copy-of-x"], ["recordName": "copy-of-copy-of-x"]]])
                #expect(lookup.json.record(0)?["recordType"] == "Echo")
                #expect(lookup.json.record(1)?["serverErrorCode"] == "NOT_FOUND")
            }
        }
    }

    @Test("a failing hook runs again with backoff, the same event id each time, until it succeeds")
    func retriedWithTheSameEventID() async throws {
        struct NotYet: Error {}
        let ledger = Ledger()
        var hooks = RecordHooks()
        hooks.afterSave(HookSelector("Flaky")) { event, _ in
            ledger.add("\(event.id)#\(event.attempt)")
            if event.attempt < 3 { throw NotYet() }
        }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            try await Self.withRunner(fixture) {
                _ = try await client.call(fixture.path("records/modify"), json: createBody(["f"], type: "Flaky"))
                #expect(try await Self.drained(fixture, seconds: 20))
                let entries = ledger.all
                #expect(entries.count == 3)
                let ids = Set(entries.map { $0.split(separator: "#")[0] })
                #expect(ids.count == 1, "one event, retried: \(entries)")
                #expect(entries.map { $0.split(separator: "#")[1] } == ["1", "2", "3"])
            }
        }
    }

    @Test("no after hook for a record type: its writes queue nothing")
    func unwatchedTypesQueueNothing() async throws {
        var hooks = RecordHooks()
        hooks.afterSave(HookSelector("Watched")) { _, _ in }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["a", "b"], type: "Note"))
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["w"], type: "Watched"))
            let depth = try await fixture.engine.storage.read { reader in try await reader.hookOutboxDepth() }
            #expect(depth.pending == 1)
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import StratusEngine
import StratusServer
import Synchronization
import Testing

/// The request journal behind the console's Logs and Telemetry screens, on the suite's backend:
/// what a client did shows up as log rows and per-minute counts, console pages and probes stay
/// out, instances add to the same counts, and pruning keeps the log inside its age and row cap.
@Suite struct RequestJournalTests {
    /// Hands summaries to a journal made once the fixture's engine exists.
    final class Relay: RequestObserver {
        let target = Mutex<(any RequestObserver)?>(nil)
        func observe(_ summary: RequestSummary) { target.withLock { $0 }?.observe(summary) }
    }

    static func journal(_ relay: Relay, _ fixture: RouterFixture, rows: Int = 1000) -> RequestJournal {
        let journal = RequestJournal(engine: fixture.engine, retention: RequestLogRetention(days: 7, rows: rows), logger: Logger(label: "journal-test"))
        relay.target.withLock { $0 = journal }
        return journal
    }

    static func configuration(_ relay: Relay) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.requestObservers = [relay]
        configuration.callerAnonymizer = CallerAnonymizer(key: Array(repeating: 3, count: 32))
        return configuration
    }

    @Test func requestsBecomeLogRowsAndPerMinuteCounts() async throws {
        let relay = Relay()
        try await RouterFixture.run(configuration: Self.configuration(relay)) { fixture, client in
            let journal = Self.journal(relay, fixture)
            let saved = try await client.call(fixture.path("records/modify"), json: createBody(["a", "b"]))
            #expect(saved.status == 200)
            for _ in 0..<2 { _ = try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#) }
            let refused = try await client.call(fixture.path("records/query", apiToken: "not-a-token"), body: #"{"query": {"recordType": "Note"}}"#)
            #expect(refused.status == 401)
            // Console pages and probes are not the application's traffic.
            _ = try await client.call("/health", method: .get)
            _ = try await client.execute(uri: "/console/signin", method: .get) { _ in }
            // Nor are a browser's and a crawler's requests for paths outside the API.
            _ = try await client.call("/favicon.ico", method: .get)
            _ = try await client.call("/robots.txt", method: .get)
            try await journal.flush()

            let rows = try await fixture.engine.requestLog(RequestLogFilter())
            #expect(rows.map(\.operation) == ["query", "query", "query", "modify"], "newest first, probes, console and non-API paths left out")
            let modify = try #require(rows.last)
            #expect(modify.uuid == saved.headers[HTTPField.Name("X-Apple-Request-UUID")!])
            #expect(modify.container == RouterFixture.container && modify.database == "public" && modify.environment == "development")
            #expect(modify.status == 200 && modify.errorCode.isEmpty && modify.latencyMicroseconds > 0)
            #expect(modify.caller.count == 16 && !modify.caller.contains(fixture.writer.userRecordName))
            #expect(rows[0].errorCode == "AUTHENTICATION_FAILED" && rows[0].status == 401 && rows[0].caller.isEmpty)

            #expect(try await fixture.engine.requestLog(RequestLogFilter(errorCode: "AUTHENTICATION_FAILED")).count == 1)
            #expect(try await fixture.engine.requestLog(RequestLogFilter(statusClass: 2)).count == 3)
            #expect(try await fixture.engine.requestLog(RequestLogFilter(operation: "modify")).map(\.uuid) == [modify.uuid])
            #expect(try await fixture.engine.requestLog(RequestLogFilter(caller: modify.caller)).count == 3)
            #expect(try await fixture.engine.requestLog(RequestLogFilter(afterID: rows[1].id)).map(\.id) == [rows[0].id], "a live tail gets what is newer")

            let rollups = try await fixture.engine.requestRollups(fromMinute: nowMilliseconds() / 60_000 - 5)
            #expect(rollups.reduce(0) { $0 + $1.count } == 4)
            let failed = try #require(rollups.first { $0.errorCode == "AUTHENTICATION_FAILED" })
            #expect(failed.count == 1 && failed.statusClass == 4 && failed.operation == "query" && failed.database == "public")
            #expect(rollups.filter { $0.operation == "query" && $0.statusClass == 2 }.reduce(0) { $0 + $1.count } == 2)
            #expect(rollups.allSatisfy { $0.buckets.reduce(0, +) == $0.count })
        }
    }

    @Test func instancesAddToTheSameMinute() async throws {
        let relay = Relay()
        try await RouterFixture.run(configuration: Self.configuration(relay)) { fixture, _ in
            let minute = nowMilliseconds() / 60_000
            var rollup = RequestRollup(minute: minute, operation: "lookup", database: "private", statusClass: 2, errorCode: "")
            rollup.add(latencyMicroseconds: 800)
            rollup.add(latencyMicroseconds: 30_000)
            // Two instances' batches for the same key.
            try await fixture.engine.recordRequests(log: [], rollups: [rollup])
            try await fixture.engine.recordRequests(log: [], rollups: [rollup])
            let stored = try await fixture.engine.requestRollups(fromMinute: minute)
            try #require(stored.count == 1)
            #expect(stored[0].count == 4 && stored[0].totalLatencyMicroseconds == 61_600)
            #expect(stored[0].buckets[2] == 2 && stored[0].buckets[7] == 2, "800 µs in the ≤1 ms bucket, 30 ms in the ≤50 ms bucket")
        }
    }

    @Test func pruningKeepsTheLogInsideItsAgeAndRowCap() async throws {
        let relay = Relay()
        try await RouterFixture.run(configuration: Self.configuration(relay)) { fixture, _ in
            let now = nowMilliseconds()
            func entry(_ at: Int64, _ uuid: String) -> RequestLogEntry {
                RequestLogEntry(
                    atMilliseconds: at, uuid: uuid, operation: "query", endpoint: "records/query", container: "c", database: "public",
                    environment: "development", caller: "", status: 200, latencyMicroseconds: 100, errorCode: "")
            }
            let old = (0..<3).map { entry(now - 9 * 86_400_000, "old-\($0)") }
            let recent = (0..<6).map { entry(now - Int64($0) * 1000, "recent-\($0)") }
            let stale = RequestRollup(minute: now / 60_000 - 26 * 60, operation: "query", database: "public", statusClass: 2, errorCode: "", count: 1)
            let fresh = RequestRollup(minute: now / 60_000 - 23 * 60, operation: "query", database: "public", statusClass: 2, errorCode: "", count: 1)
            try await fixture.engine.recordRequests(log: old + recent, rollups: [stale, fresh])
            let removed = try await fixture.engine.pruneRequestJournal(logRetentionSeconds: 7 * 86_400, maximumLogRows: 4)
            #expect(removed == 5, "three past seven days, then the two oldest beyond the cap of four")
            let kept = try await fixture.engine.requestLog(RequestLogFilter()).map(\.uuid)
            #expect(kept == ["recent-5", "recent-4", "recent-3", "recent-2"], "the newest rows written stay")
            let rollups = try await fixture.engine.requestRollups(fromMinute: 0)
            #expect(rollups.map(\.minute) == [fresh.minute], "a day of telemetry stays, older minutes go")
        }
    }

    @Test func percentilesComeFromTheHistogram() throws {
        var rollup = RequestRollup(minute: 0, operation: "query", database: "", statusClass: 2, errorCode: "")
        #expect(rollup.percentileMicroseconds(0.5) == nil)
        for _ in 0..<98 { rollup.add(latencyMicroseconds: 3_000) }
        rollup.add(latencyMicroseconds: 400_000)
        rollup.add(latencyMicroseconds: 60_000_000)
        let p50 = try #require(rollup.percentileMicroseconds(0.5))
        #expect(p50 > 2_500 && p50 <= 5_000, "the median lies in the 2.5–5 ms bucket")
        #expect(rollup.percentileMicroseconds(0.99).map { $0 > 250_000 && $0 <= 500_000 } == true)
        #expect(rollup.percentileMicroseconds(1.0) == 10_000_000, "past the last bound, the last bound")
    }
}

import Foundation
import Logging
import StratusEngine
import Synchronization
import Testing

@testable import StratusApp

/// Scheduled jobs (`Stratus.every`): run on their interval, by one instance at a time among those
/// on one database, writing through the engine as the developer.
@Suite("Scheduled jobs")
struct ScheduledJobTests {
    /// What the job saw of itself.
    final class Probe: Sendable {
        let running = Mutex(0)
        let overlapped = Mutex(false)
        let runs = Mutex(0)
    }

    @Test("a job runs on its interval, on one of two instances at a time, and writes as the developer")
    func runsOnOneInstanceAtATime() async throws {
        let probe = Probe()
        let job = ScheduledJob(name: "tick", interval: .milliseconds(200)) { context in
            let now = probe.running.withLock { count -> Int in
                count += 1
                return count
            }
            if now > 1 { probe.overlapped.withLock { $0 = true } }
            defer { probe.running.withLock { $0 -= 1 } }
            let number = probe.runs.withLock { count -> Int in
                count += 1
                return count
            }
            let database = try await context.database(container: RouterFixture.container, environment: .development)
            try await database.save("tick-\(number)", type: "Tick", fields: [:])
            try await Task.sleep(for: .milliseconds(50))
        }
        try await RouterFixture.run { fixture, client in
            var quiet = Logger(label: "jobs-test")
            quiet.logLevel = .critical
            let logger = quiet
            // A second engine on the same storage is a second instance: its own lease holder.
            let other = Engine(storage: fixture.storage, secret: Array(repeating: 7, count: 32), logger: logger)
            let tasks = [fixture.engine, other].map { engine in
                Task { try await ScheduledJobRunner(engine: engine, jobs: [job], logger: logger).run() }
            }
            try await Task.sleep(for: .seconds(2))
            for task in tasks { task.cancel() }
            let count = probe.runs.withLock { $0 }
            #expect(count >= 3, "every 200 ms for 2 s: \(count) runs")
            #expect(count <= 11)
            #expect(!probe.overlapped.withLock { $0 }, "never two runs at once")
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "tick-1"]]])
            #expect(lookup.json.record(0)?["created"]?["userRecordName"]?.stringValue?.isEmpty == false)
            #expect(lookup.json.record(0)?["recordType"] == "Tick")
        }
    }
}

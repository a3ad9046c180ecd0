import Foundation
import StratusModel
import Synchronization
import Testing

/// Every create the server acknowledged is on disk, even when the process is killed mid-stream.
@Suite struct DurabilityTests {
    /// SIGKILL: nothing gets flushed. SIGTERM: a graceful shutdown that finishes in-flight writes
    /// and exits 0.
    @Test(arguments: [SIGKILL, SIGTERM])
    func acknowledgedCreatesSurviveTheProcessEnding(signal: Int32) async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let tokenLine = try #require(server.startupLines.first { $0.hasPrefix("API token: ") })
        let token = String(tokenLine.dropFirst("API token: ".count))
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        let user = WebToken.escape(String(userLine.dropFirst("web auth token (user developer): ".count)))
        let path = "/database/1/iCloud.dev.stratus.default/development/public/records/modify?ckAPIToken=\(token)&ckWebAuthToken=\(user)"
        let client = HTTPClient(baseURL: server.baseURL)
        let acknowledged = AcknowledgedNames()
        let clients = 4
        let killAfter = 300

        let writers = WriterState()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<clients {
                group.addTask {
                    var sequence = 0
                    // A refused or failed request before the kill is retried (and the first one
                    // remembered for the report): a writer that gave up early once left the test
                    // with too few acknowledged writes in a loaded full-suite run.
                    while !writers.stopped {
                        let name = "w\(writer)-\(sequence)"
                        sequence += 1
                        do {
                            let response = try await client.send(path, json: createBody([name]))
                            if response.status == 200, response.json.record(0)?["serverErrorCode"] == nil {
                                acknowledged.append(name)
                                continue
                            }
                            writers.failed("HTTP \(response.status): \(response.json)")
                        } catch {
                            writers.failed("\(error)")
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            // Kill while the writers are mid-stream (or give up after a minute if they stopped).
            let deadline = ContinuousClock.now + .seconds(60)
            while acknowledged.count < killAfter, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            let status = server.stop(with: signal)
            writers.stop()
            if signal == SIGTERM { #expect(status == 0) }
            try await group.waitForAll()
        }

        let names = acknowledged.all
        #expect(names.count >= killAfter, "first failed request before the kill: \(writers.firstFailure ?? "none")")
        let restarted = try await RunningServer(data: folder.data, log: folder.log)
        let again = HTTPClient(baseURL: restarted.baseURL)
        let lookupPath = "/database/1/iCloud.dev.stratus.default/development/public/records/lookup?ckAPIToken=\(token)&ckWebAuthToken=\(user)"
        var missing: [String] = []
        for start in stride(from: 0, to: names.count, by: 200) {
            let batch = Array(names[start..<min(start + 200, names.count)])
            let response = try await again.send(lookupPath, json: ["records": .array(batch.map { ["recordName": .string($0)] })])
            #expect(response.status == 200)
            for (position, name) in batch.enumerated() where response.json.record(position)?["recordName"]?.stringValue != name
                || response.json.record(position)?["serverErrorCode"] != nil {
                missing.append(name)
            }
        }
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(20))")
        #expect(restarted.terminate() == 0)
    }
}

/// Whether the writers should stop, and the first request of theirs that failed.
final class WriterState: Sendable {
    private let state = Mutex<(stopped: Bool, firstFailure: String?)>((false, nil))
    var stopped: Bool { state.withLock { $0.stopped } }
    var firstFailure: String? { state.withLock { $0.firstFailure } }
    func stop() { state.withLock { $0.stopped = true } }
    func failed(_ description: String) { state.withLock { $0.firstFailure = $0.firstFailure ?? description } }
}

/// Names the server acknowledged, appended to by several writer tasks.
final class AcknowledgedNames: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var count: Int { names.withLock { $0.count } }
    var all: [String] { names.withLock { $0 } }
}

import Foundation
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
        let credentials = try DefaultContainerCredentials(server)
        let killAfter = 300
        let acknowledged = try await AcknowledgedWrites.writing(to: server, credentials: credentials) { ledger in
            // Kill while the writers are mid-stream (or give up after a minute if they stopped).
            let deadline = ContinuousClock.now + .seconds(60)
            while ledger.count < killAfter, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            let status = server.stop(with: signal)
            if signal == SIGTERM { #expect(status == 0) }
            return ledger
        }

        let names = acknowledged.all
        #expect(names.count >= killAfter, "first failed request before the kill: \(acknowledged.firstFailure ?? "none")")
        let restarted = try await RunningServer(data: folder.data, log: folder.log)
        let missing = try await AcknowledgedWrites.missing(names, at: restarted.baseURL, credentials: credentials)
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(20))")
        #expect(restarted.terminate() == 0)
    }
}

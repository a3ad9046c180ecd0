import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// The hook outbox survives SIGKILL: events queued when the process dies run after the restart,
/// each change once as the receiver counts them (by event id), none lost.
@Suite struct HookOutboxKillTests {
    @Test func queuedAfterHookEventsRunOnceEachAfterASIGKILL() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let ledger = folder.root.appendingPathComponent("receiver.log")
        let helper = try BuiltProduct.path("hook-kill-helper")
        let arguments = ["serve", "--port", "0", "--data", folder.data.path]
        let environment = ["STRATUS_HOOK_LEDGER": ledger.path]
        let server = try await RunningServer(arguments: arguments, environment: environment, log: folder.log, binary: helper)
        let credentials = try DefaultContainerCredentials(server)
        let client = HTTPClient(baseURL: server.baseURL)
        // 500 creates in 5 requests: 500 events queued in their transactions.
        for batch in 0..<5 {
            let operations: [JSONValue] = (0..<100).map { index in
                ["operationType": "create", "record": ["recordName": .string("job-\(batch)-\(index)"), "recordType": "Job", "fields": [:]]]
            }
            let answer = try await client.send(credentials.path("records/modify"), json: ["operations": .array(operations)])
            #expect(answer.status == 200)
        }
        server.stop(with: SIGKILL)
        let beforeKill = Self.lines(ledger)
        #expect(beforeKill.count < 500, "the kill came while events were queued (\(beforeKill.count) had run)")

        let restarted = try await RunningServer(arguments: arguments, environment: environment, log: folder.log, binary: helper)
        let deadline = ContinuousClock.now + .seconds(60)
        while Set(Self.lines(ledger).map(\.record)).count < 500, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(restarted.terminate() == 0)
        let delivered = Self.lines(ledger)
        let byEvent = Dictionary(grouping: delivered, by: \.event)
        #expect(Set(delivered.map(\.record)).count == 500, "every change's event ran")
        #expect(byEvent.count == 500, "one event id per change")
        #expect(byEvent.values.allSatisfy { Set($0.map(\.record)).count == 1 }, "an event id always names the same record")
    }

    static func lines(_ file: URL) -> [(event: String, record: String)] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }
}

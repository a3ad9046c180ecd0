// A Stratus server with one after hook, killed by StratusServerTests' HookOutboxKillTests while
// events are queued: the hook appends "EVENT-ID RECORD-NAME" to the file STRATUS_HOOK_LEDGER
// (the receiver), slowly enough that a burst of writes leaves events waiting in the outbox.
import Foundation
import StratusApp

let ledger = ProcessInfo.processInfo.environment["STRATUS_HOOK_LEDGER"] ?? "/dev/null"
var server = Stratus()
server.afterSave("Job") { event, _ in
    try await Task.sleep(for: .milliseconds(20))
    let descriptor = open(ledger, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard descriptor >= 0 else { throw CloudKitError(.internalError, "cannot open \(ledger)") }
    defer { close(descriptor) }
    let line = Array("\(event.id) \(event.record.recordName)\n".utf8)
    // One write of a short line to an O_APPEND file: lines from concurrent hooks never interleave.
    guard write(descriptor, line, line.count) == line.count else { throw CloudKitError(.internalError, "short write to \(ledger)") }
}
await server.run()

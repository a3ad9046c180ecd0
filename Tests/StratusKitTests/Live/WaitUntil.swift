import Testing

/// Polls `condition` every 50 ms for up to 20 s and records an issue if it never holds: for live
/// tests that wait on something a background task does (an automatic sync, a notification).
func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("condition not met within 20 s", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

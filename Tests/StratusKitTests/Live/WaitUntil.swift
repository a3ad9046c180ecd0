import Testing

/// Polls `condition` every 50 ms for up to 60 s and records an issue if it never holds: for live
/// tests that wait on something a background task does (an automatic sync, a notification). In
/// the PostgreSQL pass of a full CI run an automatic sync that takes 2 s alone took over 20 s.
func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("condition not met within 60 s", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

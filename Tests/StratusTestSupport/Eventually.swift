/// Waits until `condition` holds, polling every 50 ms, up to `timeout`. The last check runs after
/// the deadline, so a test task starved by a loaded machine between two checks still gets one
/// look at the outcome before it calls the wait a failure.
public func eventually(_ timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

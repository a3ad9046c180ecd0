import Foundation

/// Spaces requests to at most `perSecond` (`--max-requests-per-second`), shared by every task
/// that talks to the source; nil: no limit.
actor RequestPacer {
    private let interval: Duration?
    private var next = ContinuousClock.now

    init(perSecond: Double?) {
        interval = perSecond.map { .nanoseconds(Int64(1_000_000_000 / $0)) }
    }

    /// Waits for this request's turn.
    func waitTurn() async throws {
        let now = ContinuousClock.now
        let slot = max(next, now)
        next = interval.map { slot + $0 } ?? slot
        if slot > now { try await Task.sleep(until: slot, clock: .continuous) }
    }

    /// After a THROTTLED answer: nobody asks again before `delay` has passed.
    func holdOff(_ delay: Duration) {
        next = max(next, ContinuousClock.now + delay)
    }
}

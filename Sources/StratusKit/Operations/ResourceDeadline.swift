import Foundation

// `timeoutIntervalForResource` bounds a whole operation: every request, retry wait and page it
// makes. The deadline is fixed when the operation starts (or a `configuredWith` body begins);
// each request's timeout is cut to what is left, and once nothing is left the operation fails
// with `networkFailure`, as a timed-out transfer does.

extension OperationContext {
    /// The context an operation runs in: its settings, and its deadline.
    static func running(_ configuration: CKOperation.Configuration?, group: CKOperationGroup?) -> OperationContext {
        OperationContext(configuration: configuration, group: group, deadline: deadline(for: configuration))
    }

    static func deadline(for configuration: CKOperation.Configuration?) -> ContinuousClock.Instant? {
        guard let seconds = configuration?.timeoutIntervalForResource, seconds.isFinite, seconds > 0 else { return nil }
        return ContinuousClock.now.advanced(by: .milliseconds(Int64(min(seconds, 1e12) * 1000)))
    }

    /// Seconds left before the running operation's deadline; `nil` when there is none.
    static var secondsLeft: TimeInterval? {
        guard let deadline = current?.deadline else { return nil }
        let left = ContinuousClock.now.duration(to: deadline).components
        return Double(left.seconds) + Double(left.attoseconds) / 1e18
    }

    /// The timeout for the next request: `timeoutIntervalForRequest`, cut to the time left.
    /// Throws `networkFailure` when the deadline has passed.
    static func requestTimeout(before path: String) throws(CKError) -> TimeInterval? {
        let perRequest = current?.configuration?.timeoutIntervalForRequest
        guard let left = secondsLeft else { return perRequest }
        if let expired = expiredError(path) { throw expired }
        return min(perRequest ?? left, left)
    }

    /// The error for a request that the deadline ended, or `nil` while time is left.
    static func expiredError(_ path: String) -> CKError? {
        guard let left = secondsLeft, left <= 0 else { return nil }
        let limit = current?.configuration?.timeoutIntervalForResource ?? 0
        return CKError(.networkFailure, "the operation ran out of time (timeoutIntervalForResource: \(limit) s) at \(path)")
    }
}

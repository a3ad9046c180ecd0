/// What became of one attempt to hand a push to its provider, and so what happens to the row.
enum PushOutcome: Sendable, Equatable {
    /// The provider accepted it: the row goes.
    case delivered
    /// Try again later (throttled, provider trouble, timeout); the token's other pushes wait too.
    case retry(String)
    /// Try again at once with a new provider token: APNs called this one expired.
    case retryWithNewProviderToken(String)
    /// The provider no longer knows the token: the token and its queued pushes go.
    case tokenGone(String)
    /// The container's provider settings are missing or refused: logged, retried with backoff
    /// until the operator fixes them or the push expires. Other containers are unaffected.
    case misconfigured(String)
    /// The provider refused this push for good: dropped with the reason.
    case refused(String)
}

/// When a push is tried again: doubling from one second to five minutes, with jitter so
/// tokens that failed together do not all return at once.
enum PushBackoff {
    static func delayMilliseconds(attempt: Int) -> Int64 {
        let base = 1_000.0 * pow2(min(max(attempt - 1, 0), 9))
        let capped = min(base, 300_000)
        return Int64(capped * Double.random(in: 0.8...1.2))
    }

    private static func pow2(_ exponent: Int) -> Double { Double(1 << exponent) }
}

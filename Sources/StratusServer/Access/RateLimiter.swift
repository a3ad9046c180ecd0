import Foundation
import Synchronization

/// Token-bucket limits: each budget (an API token, a user, a server key) holds up to `burst`
/// requests and refills at `perSecond`. The defaults allow a busy app's bursts and a steady
/// 50 requests a second per budget, far above what one app user does. `perSecond` 0 turns limits
/// off (benchmarks, trusted deployments).
public struct RateLimitConfiguration: Sendable {
    public var perSecond: Double
    public var burst: Double
    /// How many times a user's budget the anonymous callers of one API token share. Everyone who
    /// reads a public database without signing in spends from the token's one budget (there is no
    /// user to tell them apart), so with the defaults they share 1,000 requests a second and a
    /// 10,000 burst: a busy app's anonymous readers, not one user's.
    public var anonymousMultiplier: Double

    public var isUnlimited: Bool { perSecond <= 0 }

    public init(perSecond: Double = 50, burst: Double = 500, anonymousMultiplier: Double = 20) {
        self.perSecond = perSecond
        self.burst = burst
        self.anonymousMultiplier = anonymousMultiplier
    }
}

/// The outcome of spending one request from a budget.
struct RateDecision: Sendable {
    var allowed: Bool
    var limit: Int
    /// Whole requests left after this one.
    var remaining: Int
    /// Seconds until one request is available again (when refused), or until the bucket is full.
    var retryAfter: Int
    var resetSeconds: Int
}

/// In-memory buckets, keyed by budget. Idle buckets are dropped when the table grows large:
/// a dropped bucket was full anyway once it had been idle for `burst / perSecond` seconds.
final class RateLimiter: Sendable {
    let configuration: RateLimitConfiguration
    private let buckets = Mutex<[String: (tokens: Double, updated: TimeInterval)]>([:])

    init(configuration: RateLimitConfiguration) {
        self.configuration = configuration
    }

    func spend(_ key: String, cost: Double = 1, now: TimeInterval = Date().timeIntervalSinceReferenceDate) -> RateDecision {
        if configuration.isUnlimited {
            return RateDecision(allowed: true, limit: 0, remaining: 0, retryAfter: 0, resetSeconds: 0)
        }
        let share = key.hasPrefix("token:") ? max(configuration.anonymousMultiplier, 1) : 1
        let rate = max(configuration.perSecond, 0.001) * share
        let burst = max(configuration.burst, 1) * share
        return buckets.withLock { buckets in
            if buckets.count > 100_000 {
                let idle = burst / rate
                buckets = buckets.filter { now - $0.value.updated < idle }
            }
            var bucket = buckets[key] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            let allowed = bucket.tokens >= cost
            if allowed { bucket.tokens -= cost }
            buckets[key] = bucket
            let retry = allowed ? 0 : Int(((cost - bucket.tokens) / rate).rounded(.up))
            return RateDecision(allowed: allowed, limit: Int(burst), remaining: Int(bucket.tokens.rounded(.down)),
                                retryAfter: max(retry, allowed ? 0 : 1),
                                resetSeconds: Int(((burst - bucket.tokens) / rate).rounded(.up)))
        }
    }
}

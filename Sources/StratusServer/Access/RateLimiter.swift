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

/// Takes up to `want` tokens from the stored bucket of a budget that every instance shares
/// (`Engine.takeRateTokens`); returns what it took and what is left.
typealias SharedRateBuckets =
    @Sendable (_ budget: String, _ want: Double, _ perSecond: Double, _ burst: Double) async throws
    -> (taken: Double, left: Double)

/// Buckets keyed by budget. With one server (SQLite) they live in memory: idle buckets are
/// dropped when the table grows large (a dropped bucket was full anyway once it had been idle for
/// `burst / perSecond` seconds). With several instances (`shared`) each budget's bucket is stored,
/// and an instance takes allowances of a few requests from it at a time, so N instances allow one
/// budget, not N, for one round trip per allowance instead of per request.
final class RateLimiter: Sendable {
    let configuration: RateLimitConfiguration
    let shared: SharedRateBuckets?
    private let buckets = Mutex<[String: (tokens: Double, updated: TimeInterval)]>([:])
    /// Shared mode: tokens this instance took and has not spent yet, per budget, and until when
    /// they may be spent (an allowance left unused soon lapses rather than hoarding the budget).
    private let allowances = Mutex<[String: (tokens: Double, until: TimeInterval)]>([:])

    /// Seconds an unspent allowance stays usable.
    static let allowanceLifetime: TimeInterval = 1

    init(configuration: RateLimitConfiguration, shared: SharedRateBuckets? = nil) {
        self.configuration = configuration
        self.shared = shared
    }

    /// Requests refill at `rate` per second up to `burst`, for `key`'s kind of budget.
    func limits(_ key: String) -> (rate: Double, burst: Double) {
        let share = key.hasPrefix("token:") ? max(configuration.anonymousMultiplier, 1) : 1
        return (max(configuration.perSecond, 0.001) * share, max(configuration.burst, 1) * share)
    }

    func spend(_ key: String, cost: Double = 1, now: TimeInterval = Date().timeIntervalSinceReferenceDate) async -> RateDecision {
        guard !configuration.isUnlimited, let shared else { return spendLocally(key, cost: cost, now: now) }
        let (rate, burst) = limits(key)
        if let remaining = spendAllowance(key, cost: cost, now: now) {
            return RateDecision(
                allowed: true, limit: Int(burst), remaining: Int(remaining.rounded(.down)), retryAfter: 0,
                resetSeconds: Int(((burst - remaining) / rate).rounded(.up)))
        }
        // A few requests' worth at a time: a fiftieth of the burst, at least what this costs.
        let want = min(burst, max(cost, (burst / 50).rounded(.up)))
        let taken: (taken: Double, left: Double)
        do {
            taken = try await shared(key, want, rate, burst)
        } catch {
            // The request itself needs the database too; do not refuse it for this.
            return RateDecision(allowed: true, limit: Int(burst), remaining: 0, retryAfter: 0, resetSeconds: 0)
        }
        allowances.withLock { allowances in
            if allowances.count > 100_000 { allowances = allowances.filter { $0.value.until > now } }
            let current = allowances[key].flatMap { $0.until > now ? $0.tokens : nil } ?? 0
            allowances[key] = (current + taken.taken, now + RateLimiter.allowanceLifetime)
        }
        if let remaining = spendAllowance(key, cost: cost, now: now) {
            return RateDecision(
                allowed: true, limit: Int(burst), remaining: Int((remaining + taken.left).rounded(.down)), retryAfter: 0,
                resetSeconds: Int(((burst - taken.left) / rate).rounded(.up)))
        }
        let retry = Int(((cost - taken.left) / rate).rounded(.up))
        return RateDecision(
            allowed: false, limit: Int(burst), remaining: 0, retryAfter: max(retry, 1),
            resetSeconds: Int(((burst - taken.left) / rate).rounded(.up)))
    }

    /// Spends from this instance's allowance for `key`; the tokens left, or nil when too few.
    private func spendAllowance(_ key: String, cost: Double, now: TimeInterval) -> Double? {
        allowances.withLock { allowances in
            guard let allowance = allowances[key], allowance.until > now, allowance.tokens >= cost else { return nil }
            allowances[key] = (allowance.tokens - cost, allowance.until)
            return allowance.tokens - cost
        }
    }

    func spendLocally(_ key: String, cost: Double = 1, now: TimeInterval = Date().timeIntervalSinceReferenceDate) -> RateDecision {
        if configuration.isUnlimited {
            return RateDecision(allowed: true, limit: 0, remaining: 0, retryAfter: 0, resetSeconds: 0)
        }
        let (rate, burst) = limits(key)
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
            return RateDecision(
                allowed: allowed, limit: Int(burst), remaining: Int(bucket.tokens.rounded(.down)),
                retryAfter: max(retry, allowed ? 0 : 1),
                resetSeconds: Int(((burst - bucket.tokens) / rate).rounded(.up)))
        }
    }
}

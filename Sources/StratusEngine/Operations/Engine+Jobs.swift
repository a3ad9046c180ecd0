import Foundation
import Synchronization

extension Engine {
    /// How long a job's lease lasts without renewal: an instance that dies holding it is
    /// replaced by another at most this long (plus one check interval) later.
    public static let jobLeaseSeconds: Double = 45
    /// How often instances check a job's lease (and its holder renews it).
    public static let jobCheckSeconds: Double = 15

    /// Runs `body` when this instance holds the lease of `job` and the job's last run (by any
    /// instance) finished at least `interval` seconds ago; renews the lease while `body` runs.
    /// Returns whether it ran. Any number of instances may call this on the same schedule: one
    /// runs the job at a time.
    @discardableResult
    public func runJobIfDue(
        _ job: String, every interval: TimeInterval, lease: TimeInterval = Engine.jobLeaseSeconds,
        _ body: @Sendable @escaping () async throws -> Void
    ) async throws -> Bool {
        guard let lastRun = try await claimJob(job, lease: lease), nowMilliseconds() - lastRun >= Int64(interval * 1000) else { return false }
        // Renewal stops as soon as the body returns: a renewal that slipped in after it would
        // keep other instances waiting a whole lease longer.
        let finished = JobFinished()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(min(Engine.jobCheckSeconds, lease / 3)))
                    if finished.flag.withLock({ $0 }) { return }
                    _ = try await self.claimJob(job, lease: lease)
                }
            }
            try await body()
            finished.flag.withLock { $0 = true }
            group.cancelAll()
        }
        let holder = instanceID
        try await storage.write { writer in try await writer.finishJob(job, holder: holder, atMilliseconds: nowMilliseconds()) }
        return true
    }

    /// Takes or renews this instance's lease of `job`; the job's last run time when held.
    func claimJob(_ job: String, lease: TimeInterval) async throws -> Int64? {
        let holder = instanceID
        let now = nowMilliseconds()
        let expires = now + Int64(lease * 1000)
        let lastRun = try await storage.write { writer in
            try await writer.claimJob(job, holder: holder, nowMilliseconds: now, expiresMilliseconds: expires)
        }
        // Say when the job moves here (at start, or taking over from an instance that died), so
        // an operator can tell which instance runs it. A server alone on its storage (SQLite) has
        // nothing to tell apart, and the notices would come before its first-start banner.
        let movedHere = heldJobs.withLock { held in
            guard lastRun != nil else { held.remove(job); return false }
            return held.insert(job).inserted
        }
        if movedHere {
            logger.log(level: storage.servesSeveralInstances ? .notice : .debug, "this instance now runs the background job \(job) (instance \(holder))")
        }
        return lastRun
    }
}

extension Engine {
    /// Whether other server instances use the same storage (PostgreSQL), so state such as
    /// rate-limit budgets must live there rather than in this process.
    public var sharesStateWithOtherInstances: Bool { storage.servesSeveralInstances }

    /// Takes up to `want` tokens from `budget`'s stored bucket (see `FleetStorageWriter`).
    @Sendable
    public func takeRateTokens(_ budget: String, want: Double, perSecond: Double, burst: Double) async throws -> (taken: Double, left: Double) {
        let now = nowMilliseconds()
        return try await storage.write { writer in
            try await writer.takeRateTokens(budget, want: want, perSecond: perSecond, burst: burst, nowMilliseconds: now)
        }
    }
}

/// Whether a job's body has returned (its lease renewal then stops).
final class JobFinished: Sendable {
    let flag = Mutex(false)
}

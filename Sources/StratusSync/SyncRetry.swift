import Foundation
import StratusKit

/// How the engine retries transient failures (throttling, the server busy, the network down).
public struct SyncRetryPolicy: Sendable {
    /// Attempts per sync step before the failure is returned to the caller.
    public var maximumAttempts: Int
    /// The first wait; it doubles with each attempt, up to `maximumDelay`.
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval

    public init(maximumAttempts: Int = 6, initialDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 30) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before attempt `attempt + 1`: the server's `retryAfter` when it gave one (never
    /// shorter), else exponential backoff with up to 20% jitter so devices do not retry in step.
    func delay(after attempt: Int, error: CKError) -> TimeInterval {
        let backoff = min(maximumDelay, initialDelay * pow(2, Double(attempt - 1))) * Double.random(in: 1...1.2)
        if let hinted = error.retryAfterSeconds { return min(max(hinted, 0), maximumDelay * 4) }
        return backoff
    }
}

extension CKError {
    /// Failures that go away by waiting: the engine retries them (the same set as CKSyncEngine).
    var isTransient: Bool { isRetriedBySyncEngine }

    /// The server refused who is calling: syncing cannot go on until the credentials change.
    var isAuthenticationFailure: Bool {
        code == .notAuthenticated || code == .badContainer || code == .missingEntitlement
    }
}

extension SyncEngine {
    /// Runs one sync step, retrying transient failures per the retry policy; an authentication
    /// failure stops the engine (pending changes stay queued) and is reported once.
    func withRetries(_ step: () async throws -> Void) async throws {
        if let authenticationError { throw SyncError.stoppedAfterAuthenticationFailure(authenticationError) }
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await step()
                return
            } catch let error as CKError where error.isTransient && attempt < configuration.retry.maximumAttempts {
                let delay = configuration.retry.delay(after: attempt, error: error)
                emit(.retrying(after: delay, error: error))
                try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            } catch let error as CKError where error.isAuthenticationFailure {
                authenticationError = error
                emit(.authenticationFailed(error: error))
                throw SyncError.stoppedAfterAuthenticationFailure(error)
            }
        }
    }

    /// Runs `work` after every sync job started before it, so sends and fetches never overlap
    /// (the actor is re-entered at every network wait; local saves go on meanwhile).
    func serialized(_ work: @escaping @Sendable (isolated SyncEngine) async throws -> Void) async throws {
        let previous = lastJob
        let job = Task {
            _ = await previous?.result
            try await work(self)
        }
        lastJob = job
        try await job.value
    }
}

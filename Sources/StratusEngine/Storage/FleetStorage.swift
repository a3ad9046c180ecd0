/// What the instances of one deployment share besides records and identities: who runs each
/// background job, rate-limit budgets and failed sign-ins. (One SQLite folder has one server,
/// but a server and commands may share it.)
public protocol FleetStorageWriter: Sendable {
    /// Takes or renews the lease of `job` for `holder` until `expiresMilliseconds`, when the lease
    /// is free, expired at `nowMilliseconds`, or already `holder`'s. Returns when the job last
    /// finished a run (0 if never) while `holder` holds the lease, nil when another holder does.
    func claimJob(_ job: String, holder: String, nowMilliseconds: Int64, expiresMilliseconds: Int64) async throws -> Int64?
    /// Records that `holder` finished a run of `job` at `atMilliseconds`.
    func finishJob(_ job: String, holder: String, atMilliseconds: Int64) async throws

    /// Refills `budget`'s bucket (at most `burst`, `perSecond` since its last use; a new bucket
    /// starts full), then takes up to `want` whole tokens from it. Returns what was taken and
    /// what is left.
    func takeRateTokens(
        _ budget: String, want: Double, perSecond: Double, burst: Double,
        nowMilliseconds: Int64
    ) async throws -> (taken: Double, left: Double)

    /// Consecutive failed sign-ins of `address` and when the last one was, or nil.
    func signInFailures(_ address: String) async throws -> (count: Int, lastMilliseconds: Int64)?
    /// Counts one more failed sign-in of `address`.
    func recordSignInFailure(_ address: String, atMilliseconds: Int64) async throws
    /// Forgets the failures of `address` (it signed in).
    func clearSignInFailures(_ address: String) async throws
}

/// What the instances of one deployment share besides records and identities: who runs each
/// background job. (One SQLite folder has one server, but a server and commands may share it.)
public protocol FleetStorageWriter: Sendable {
    /// Takes or renews the lease of `job` for `holder` until `expiresMilliseconds`, when the lease
    /// is free, expired at `nowMilliseconds`, or already `holder`'s. Returns when the job last
    /// finished a run (0 if never) while `holder` holds the lease, nil when another holder does.
    func claimJob(_ job: String, holder: String, nowMilliseconds: Int64, expiresMilliseconds: Int64) async throws -> Int64?
    /// Records that `holder` finished a run of `job` at `atMilliseconds`.
    func finishJob(_ job: String, holder: String, atMilliseconds: Int64) async throws
}

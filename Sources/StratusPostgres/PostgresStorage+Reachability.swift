import StratusEngine

extension PostgresStorage: StorageReachability {
    /// How long the readiness check waits for a connection to a primary.
    static let reachabilityWait: Duration = .seconds(1)

    /// A connection to a server that fits the URL (a primary, for `read-write`) within a second,
    /// and one round trip on it.
    public func checkReachable() async throws {
        _ = try await database.leasing(within: Self.reachabilityWait) { connection in
            try await GuardedStatement.rows("SELECT 1", on: connection, logger: database.logger)
        }
    }
}

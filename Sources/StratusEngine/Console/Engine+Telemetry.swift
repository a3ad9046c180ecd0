/// The request journal behind the console's Logs and Telemetry screens: every instance writes
/// its buffered requests in one transaction at a time, and all of them read the same rows.
extension Engine {
    /// Stores a batch of log rows and adds a batch of per-minute rollups, in one transaction.
    public func recordRequests(log entries: [RequestLogEntry], rollups: [RequestRollup]) async throws {
        guard !entries.isEmpty || !rollups.isEmpty else { return }
        try await storage.write { writer in
            try await writer.lockRequestJournal()
            try await writer.appendRequestLog(entries)
            try await writer.addRequestRollups(rollups)
        }
    }

    public func requestLog(_ filter: RequestLogFilter) async throws -> [RequestLogEntry] {
        try await storage.read { reader in try await reader.requestLog(filter) }
    }

    /// Rollups from `minute` (whole minutes since 1970) on.
    public func requestRollups(fromMinute minute: Int64) async throws -> [RequestRollup] {
        try await storage.read { reader in try await reader.requestRollups(fromMinute: minute) }
    }

    /// Drops log rows older than `logRetentionSeconds` or beyond the newest `maximumLogRows`,
    /// and rollups older than `rollupRetentionSeconds`. Returns the log rows removed.
    @discardableResult
    public func pruneRequestJournal(
        logRetentionSeconds: Double, maximumLogRows: Int,
        rollupRetentionSeconds: Double = 25 * 3600
    ) async throws -> Int {
        let now = nowMilliseconds()
        let logCutoff = now - Int64(logRetentionSeconds * 1000)
        let rollupCutoff = (now - Int64(rollupRetentionSeconds * 1000)) / 60_000
        return try await storage.write { writer in
            try await writer.pruneRequestJournal(logBeforeMilliseconds: logCutoff, keepingRows: maximumLogRows, rollupsBeforeMinute: rollupCutoff)
        }
    }
}

import StratusEngine

/// Migration 14, on every backend: the request journal the console's Logs and Telemetry screens
/// read, written in batches by every instance (see `RequestJournal` in the server).
/// - `request_log`: one row per request, pruned by age and capped in rows.
/// - `request_rollups`: per minute and (operation, database, status class, error code), the
///   request count and a latency histogram (`b0`…`b14`, the buckets of
///   `RequestRollup.bucketBoundsMicroseconds`); instances add to the same row.
public enum RequestJournalTables {
    public static let version = 14

    static var bucketColumns: [String] { (0..<RequestRollup.bucketCount).map { "b\($0)" } }

    /// `identity` is the backend's auto-numbered primary key column type.
    public static func statements(identity: String) -> [String] {
        [
            """
            CREATE TABLE request_log (
                id \(identity),
                at_ms BIGINT NOT NULL,
                uuid TEXT NOT NULL,
                operation TEXT NOT NULL,
                endpoint TEXT NOT NULL,
                container TEXT NOT NULL,
                scope TEXT NOT NULL,
                environment TEXT NOT NULL,
                caller TEXT NOT NULL,
                status INTEGER NOT NULL,
                latency_us BIGINT NOT NULL,
                error_code TEXT NOT NULL)
            """,
            "CREATE INDEX request_log_by_time ON request_log (at_ms)",
            """
            CREATE TABLE request_rollups (
                minute BIGINT NOT NULL,
                operation TEXT NOT NULL,
                scope TEXT NOT NULL,
                status_class INTEGER NOT NULL,
                error_code TEXT NOT NULL,
                requests BIGINT NOT NULL,
                latency_us BIGINT NOT NULL,
                \(bucketColumns.map { "\($0) BIGINT NOT NULL" }.joined(separator: ", ")),
                PRIMARY KEY (minute, operation, scope, status_class, error_code))
            """,
        ]
    }
}

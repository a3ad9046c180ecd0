/// Migration 16, on every backend: the hook outbox. A write queues one row per after hook that
/// watches what it changed, in the write's own transaction, so an event is never lost to a crash
/// after the commit and never runs before it. Rows are leased by the instance that runs them and
/// removed once the hook returned; `failed_ms` marks an event given up on, kept for the operator.
public enum HookOutboxTables {
    public static let version = 16

    /// `identity` is the backend's auto-numbered primary key column type.
    public static func statements(identity: String) -> [String] {
        [
            """
            CREATE TABLE hook_events (
                id \(identity),
                hook TEXT NOT NULL,
                order_key TEXT NOT NULL,
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                scope TEXT NOT NULL,
                owner TEXT NOT NULL,
                via_database TEXT NOT NULL,
                kind TEXT NOT NULL,
                caller_user TEXT,
                caller_developer TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                record_name TEXT NOT NULL,
                record_type TEXT NOT NULL,
                change_tag TEXT NOT NULL,
                fields TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                created_by TEXT NOT NULL,
                modified_ms BIGINT NOT NULL,
                modified_by TEXT NOT NULL,
                queued_ms BIGINT NOT NULL,
                next_attempt_ms BIGINT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0,
                lease_holder TEXT NOT NULL DEFAULT '',
                lease_until_ms BIGINT NOT NULL DEFAULT 0,
                failed_ms BIGINT NOT NULL DEFAULT 0,
                last_error TEXT NOT NULL DEFAULT '')
            """,
            // Claims walk the live events in queue order.
            "CREATE INDEX hook_events_live ON hook_events (failed_ms, id)",
            "CREATE INDEX hook_events_by_key ON hook_events (order_key, id)",
        ]
    }
}

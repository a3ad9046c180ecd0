/// Migration 17, on every backend: `webhooks`, the URLs operators added (`stratus webhook add`)
/// to receive a container's record changes. Deliveries are rows of `hook_events` named
/// `webhook:ID`, queued with the writes like after-hook events.
public enum WebhookTables {
    public static let version = 17

    public static let statements: [String] = [
        """
        CREATE TABLE webhooks (
            id TEXT NOT NULL PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            record_types TEXT NOT NULL,
            events TEXT NOT NULL,
            databases TEXT NOT NULL,
            created_ms BIGINT NOT NULL)
        """,
        "CREATE INDEX webhooks_by_container ON webhooks (container)",
    ]
}

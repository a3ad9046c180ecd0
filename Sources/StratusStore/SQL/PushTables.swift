/// Migration 12, on every backend: push delivery to APNs and Web Push.
/// - `push_addresses`: where a registered push token is delivered besides the web courier (an
///   APNs device token with its environment, or a browser subscription's endpoint and keys).
/// - `push_credentials`: each container environment's provider settings (`stratus push`).
/// - `push_queue`: pushes waiting for the provider to accept them, leased by the instance that
///   sends them; a row goes only once the provider accepted it (or it was dropped).
/// - `push_drops`: pushes given up on and why, for the operator.
public enum PushTables {
    public static let version = 12

    /// `identity` is the backend's auto-numbered primary key column type.
    public static func statements(identity: String) -> [String] {
        [
            """
            CREATE TABLE push_addresses (
                digest TEXT NOT NULL PRIMARY KEY,
                transport TEXT NOT NULL,
                target TEXT NOT NULL,
                public_key TEXT NOT NULL,
                secret TEXT NOT NULL)
            """,
            """
            CREATE TABLE push_credentials (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                provider TEXT NOT NULL,
                settings TEXT NOT NULL,
                updated_ms BIGINT NOT NULL,
                PRIMARY KEY (container, environment, provider))
            """,
            """
            CREATE TABLE push_queue (
                id \(identity),
                token_digest TEXT NOT NULL,
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                subscription_id TEXT NOT NULL,
                payload TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                expires_ms BIGINT NOT NULL,
                next_attempt_ms BIGINT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0,
                lease_holder TEXT NOT NULL DEFAULT '',
                lease_until_ms BIGINT NOT NULL DEFAULT 0,
                last_error TEXT NOT NULL DEFAULT '')
            """,
            "CREATE INDEX push_queue_due ON push_queue (next_attempt_ms)",
            "CREATE INDEX push_queue_by_token ON push_queue (token_digest)",
            """
            CREATE TABLE push_drops (
                id \(identity),
                token_digest TEXT NOT NULL,
                subscription_id TEXT NOT NULL,
                reason TEXT NOT NULL,
                at_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX push_drops_by_time ON push_drops (at_ms)",
        ]
    }
}

/// Migration 3: subscriptions, push tokens and the per-token frame queue of the web courier.
public enum NotificationTables {
    public static let statements: [String] = [
        """
        CREATE TABLE subscriptions (
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            subscription_id TEXT NOT NULL,
            definition TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            PRIMARY KEY (container, environment, scope, owner, user_record_name, subscription_id))
        """,
        """
        CREATE TABLE push_tokens (
            digest TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            apns_environment TEXT NOT NULL,
            apns_token TEXT NOT NULL,
            registered INTEGER NOT NULL,
            created_ms BIGINT NOT NULL)
        """,
        "CREATE INDEX push_tokens_by_user ON push_tokens (container, environment, user_record_name)",
        """
        CREATE TABLE notification_frames (
            id INTEGER PRIMARY KEY,
            token_digest TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            body TEXT NOT NULL)
        """,
        "CREATE INDEX notification_frames_by_token ON notification_frames (token_digest, id)",
    ]
}

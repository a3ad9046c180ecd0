/// The tables every SQL backend has, in portable SQL. Backends add their own (full-text) tables.
public enum CoreTables {
    public static let statements: [String] = [
        """
        CREATE TABLE containers (
            identifier TEXT PRIMARY KEY,
            developer_record_name TEXT NOT NULL,
            created_ms BIGINT NOT NULL)
        """,
        "CREATE TABLE api_tokens (digest TEXT PRIMARY KEY, container TEXT NOT NULL, created_ms BIGINT NOT NULL)",
        """
        CREATE TABLE users (
            container TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            name TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            PRIMARY KEY (container, user_record_name))
        """,
        """
        CREATE TABLE web_auth_tokens (
            digest TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            created_ms BIGINT NOT NULL)
        """,
        """
        CREATE TABLE stores (
            id INTEGER PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            last_seq BIGINT NOT NULL DEFAULT 0,
            UNIQUE (container, environment, scope, owner))
        """,
        """
        CREATE TABLE zones (
            store_id BIGINT NOT NULL,
            zone_name TEXT NOT NULL,
            change_seq BIGINT NOT NULL,
            PRIMARY KEY (store_id, zone_name))
        """,
        """
        CREATE TABLE records (
            id INTEGER PRIMARY KEY,
            store_id BIGINT NOT NULL,
            zone_name TEXT NOT NULL,
            record_name TEXT NOT NULL,
            record_type TEXT NOT NULL,
            change_tag TEXT NOT NULL,
            seq BIGINT NOT NULL,
            fields TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            created_by TEXT NOT NULL,
            modified_ms BIGINT NOT NULL,
            modified_by TEXT NOT NULL,
            UNIQUE (store_id, zone_name, record_name))
        """,
        "CREATE INDEX records_by_type ON records (store_id, record_type, zone_name, record_name)",
        """
        CREATE TABLE changes (
            store_id BIGINT NOT NULL,
            seq BIGINT NOT NULL,
            zone_name TEXT NOT NULL,
            record_name TEXT NOT NULL,
            op TEXT NOT NULL,
            PRIMARY KEY (store_id, seq))
        """,
        """
        CREATE TABLE record_refs (
            record_id BIGINT NOT NULL,
            store_id BIGINT NOT NULL,
            target_zone TEXT NOT NULL,
            target_name TEXT NOT NULL,
            action TEXT NOT NULL)
        """,
        "CREATE INDEX record_refs_by_target ON record_refs (store_id, target_zone, target_name)",
        "CREATE INDEX record_refs_by_holder ON record_refs (record_id)",
        """
        CREATE TABLE list_values (
            record_id BIGINT NOT NULL,
            store_id BIGINT NOT NULL,
            record_type TEXT NOT NULL,
            field TEXT NOT NULL,
            value TEXT)
        """,
        "CREATE INDEX list_values_lookup ON list_values (store_id, record_type, field, value)",
        "CREATE INDEX list_values_by_holder ON list_values (record_id)",
        """
        CREATE TABLE schema_types (
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            record_type TEXT NOT NULL,
            definition TEXT NOT NULL,
            PRIMARY KEY (container, environment, record_type))
        """,
    ]

    /// Migration 2: what change feeds read. Records by zone and sequence (changed records once,
    /// at their latest write), deletions by zone, and when each change happened (for compaction).
    public static let changeFeedStatements: [String] = [
        "CREATE INDEX records_by_sequence ON records (store_id, zone_name, seq)",
        "CREATE INDEX changes_by_zone ON changes (store_id, zone_name, seq)",
        "ALTER TABLE changes ADD COLUMN at_ms BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE stores ADD COLUMN compacted_seq BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX changes_by_time ON changes (at_ms)",
    ]
}

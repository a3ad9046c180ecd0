/// Migration 10, on every backend: sharing.
/// - `shares`: one row per share record, keyed by its short GUID (the `/share/<guid>` URL);
///   `root_name` is the hierarchy's root, empty for a zone-wide share.
/// - `share_participants`: everyone but the owner (implied by the store), in the share's order
///   (`position`); looked up by user when a participant lists their shared database.
public enum SharingTables {
    public static let version = 10

    public static let statements: [String] = [
        """
        CREATE TABLE shares (
            short_guid TEXT NOT NULL PRIMARY KEY,
            store_id BIGINT NOT NULL,
            zone_name TEXT NOT NULL,
            record_name TEXT NOT NULL,
            root_name TEXT NOT NULL,
            public_permission TEXT NOT NULL,
            UNIQUE (store_id, zone_name, record_name))
        """,
        """
        CREATE TABLE share_participants (
            short_guid TEXT NOT NULL,
            participant_id TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            email TEXT NOT NULL,
            phone TEXT NOT NULL,
            role TEXT NOT NULL,
            permission TEXT NOT NULL,
            status TEXT NOT NULL,
            added_ms BIGINT NOT NULL,
            position BIGINT NOT NULL,
            PRIMARY KEY (short_guid, participant_id))
        """,
        "CREATE INDEX share_participants_by_user ON share_participants (user_record_name, status)",
    ]
}

/// Migration 8 (SQLite): the change log in one B-tree, and its deletions index holding deletions
/// only. Every write appends to `changes`, and each B-tree an append touches is one more page in
/// that commit's write-ahead-log frames, so this takes a single-record create from 11 WAL frames
/// to 9 (counted with `PRAGMA wal_checkpoint` around one create).
/// - `changes` was a rowid table with its primary key `(store_id, seq)` as a second B-tree. As
///   `WITHOUT ROWID` the rows live in the primary key's B-tree. Nothing reads its rowid.
/// - `changes_deletes_by_zone (store_id, zone_name, op, seq)` served only the tombstone half of a
///   zone change feed, which asks for `op = 'delete'`; as a partial index on those rows, saves
///   (most of the log) no longer enter it. `EXPLAIN QUERY PLAN` of that query still searches it
///   by store, zone and sequence; the other change-log queries use the primary key as before.
/// The copy rewrites the whole log once, in the migration's transaction.
enum ChangeLogLayout {
    static let statements: [String] = [
        """
        CREATE TABLE changes_compact (
            store_id BIGINT NOT NULL,
            seq BIGINT NOT NULL,
            zone_name TEXT NOT NULL,
            record_name TEXT NOT NULL,
            op TEXT NOT NULL,
            at_ms BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (store_id, seq)) WITHOUT ROWID
        """,
        """
        INSERT INTO changes_compact (store_id, seq, zone_name, record_name, op, at_ms)
        SELECT store_id, seq, zone_name, record_name, op, at_ms FROM changes
        """,
        "DROP TABLE changes",
        "ALTER TABLE changes_compact RENAME TO changes",
        "CREATE INDEX changes_deletions_by_zone ON changes (store_id, zone_name, seq) WHERE op = 'delete'",
    ]
}

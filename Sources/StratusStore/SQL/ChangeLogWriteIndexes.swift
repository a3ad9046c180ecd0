/// Migration 7: drops two change-log indexes that every write paid for and no read needs.
/// - `changes_by_zone (store_id, zone_name, seq)`: each query on `changes` is served as well by
///   the primary key `(store_id, seq)` or by `changes_deletes_by_zone (store_id, zone_name, op, seq)`
///   (on SQLite, `changes_deletions_by_zone` since migration 8)
///   (checked with EXPLAIN QUERY PLAN: the plans are unchanged without it).
/// - `changes_by_time (at_ms)`: served only the hourly compaction, which now finds each store's
///   horizon by walking the store's log in sequence order (`at_ms` grows with `seq`), reading
///   only the entries it is about to delete.
public enum ChangeLogWriteIndexes {
    public static let statements: [String] = [
        "DROP INDEX IF EXISTS changes_by_zone",
        "DROP INDEX IF EXISTS changes_by_time",
    ]
}

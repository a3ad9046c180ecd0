/// Migration 6: an index for the tombstone half of `changes/zone`. Without it each page scanned
/// every change-log entry after the token (saves included) to find the deletions, so fetching a
/// zone of N records page by page cost O(N²): 100k records took ~40 s, almost all of it in that
/// scan (see Benchmarks/README.md, "Sync engine"). With it a page reads only deletions. (SQLite's
/// migration 8, `ChangeLogLayout`, replaces it with a partial index on deletions only.)
public enum ChangeFeedIndexes {
    public static let statements: [String] = [
        "CREATE INDEX changes_deletes_by_zone ON changes (store_id, zone_name, op, seq)"
    ]
}

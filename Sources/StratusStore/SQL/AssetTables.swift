/// Migration 5: assets. `blobs` lists finished uploads (content-addressed by SHA-256);
/// `record_assets` says which record references which blob, kept by the record writes like the
/// other side tables, so collection and quotas read exactly what records hold.
public enum AssetTables {
    public static let statements: [String] = [
        """
        CREATE TABLE blobs (
            checksum TEXT PRIMARY KEY,
            size BIGINT NOT NULL,
            touched_ms BIGINT NOT NULL)
        """,
        "CREATE INDEX blobs_by_time ON blobs (touched_ms)",
        """
        CREATE TABLE record_assets (
            record_id BIGINT NOT NULL,
            store_id BIGINT NOT NULL,
            checksum TEXT NOT NULL,
            size BIGINT NOT NULL)
        """,
        "CREATE INDEX record_assets_by_checksum ON record_assets (checksum)",
        "CREATE INDEX record_assets_by_holder ON record_assets (record_id)",
        "CREATE INDEX record_assets_by_store ON record_assets (store_id, checksum)",
    ]
}

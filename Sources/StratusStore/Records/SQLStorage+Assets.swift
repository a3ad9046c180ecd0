import StratusEngine
import StratusModel

extension SQLStorageReader {
    /// A blob being collected (`touched_ms` -1) counts as gone. A writer holds the row (share
    /// lock) until it commits, so a concurrent collection waits and then sees the reference.
    func blobSize(checksum: String) async throws -> Int64? {
        try await sql.query(
            """
            SELECT size FROM blobs WHERE checksum = \(bind: checksum) AND touched_ms >= 0\(unsafeRaw: rowShareLock)
            """
        ).first?[0].integer
    }

    func assetUsage(_ store: StoreKey) async throws -> Int64 {
        guard let id = try await storeID(store) else { return 0 }
        return try await sql.query(
            """
            SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM (SELECT DISTINCT checksum, size FROM record_assets WHERE store_id = \(bind: id)) AS held
            """
        ).first?[0].integer ?? 0
    }

    func storeReferencesBlob(_ store: StoreKey, checksum: String) async throws -> Bool {
        guard let id = try await storeID(store) else { return false }
        return try await !sql.query("SELECT 1 FROM record_assets WHERE store_id = \(bind: id) AND checksum = \(bind: checksum) LIMIT 1").isEmpty
    }

    func assetUsage(container: String) async throws -> [StoreUsage] {
        let rows = try await sql.query(
            """
            SELECT stores.environment, stores.scope, stores.owner, CAST(COALESCE(SUM(held.size), 0) AS BIGINT), COUNT(held.checksum)
            FROM stores JOIN (SELECT DISTINCT store_id, checksum, size FROM record_assets) AS held ON held.store_id = stores.id
            WHERE stores.container = \(bind: container)
            GROUP BY stores.id, stores.environment, stores.scope, stores.owner
            ORDER BY stores.environment, stores.scope, stores.owner
            """)
        return rows.compactMap { row in
            guard let environment = row[0].text.flatMap(DatabaseEnvironment.init(rawValue:)),
                let scope = row[1].text.flatMap(DatabaseScope.init(rawValue:))
            else { return nil }
            return StoreUsage(
                store: StoreKey(container: container, environment: environment, scope: scope, owner: row[2].text ?? ""),
                bytes: row[3].integer ?? 0, blobs: Int(row[4].integer ?? 0))
        }
    }
}

extension SQLStorageWriter {
    func touchBlob(checksum: String, size: Int64, atMilliseconds: Int64) async throws {
        try await sql.execute(
            """
            INSERT INTO blobs (checksum, size, touched_ms) VALUES (\(bind: checksum), \(bind: size), \(bind: atMilliseconds))
            ON CONFLICT (checksum) DO UPDATE SET touched_ms = excluded.touched_ms
            """)
    }

    /// A blob being collected has `touched_ms` -1 (an upload or rereference sets it to now again).
    func markCollectableBlobs(before cutoffMilliseconds: Int64, limit: Int) async throws -> [String] {
        try await sql.query(
            """
            UPDATE blobs SET touched_ms = -1 WHERE checksum IN (
                SELECT checksum FROM blobs WHERE touched_ms < \(bind: cutoffMilliseconds)
                AND NOT EXISTS (SELECT 1 FROM record_assets WHERE record_assets.checksum = blobs.checksum)
                LIMIT \(bind: Int64(limit)))
            RETURNING checksum
            """
        ).compactMap { $0[0].text }
    }

    func lockMarkedBlob(checksum: String) async throws -> Bool {
        !(try await sql.query(
            """
            SELECT 1 FROM blobs WHERE checksum = \(bind: checksum) AND touched_ms = -1
            AND NOT EXISTS (SELECT 1 FROM record_assets WHERE record_assets.checksum = blobs.checksum)\(unsafeRaw: dialect.lockRowsForUpdate)
            """)).isEmpty
    }

    func deleteBlob(checksum: String) async throws {
        try await sql.execute("DELETE FROM blobs WHERE checksum = \(bind: checksum)")
    }

    /// One `record_assets` row per distinct blob the record references.
    func writeAssetRows(_ recordID: Int64, storeID: Int64, record: RecordRow) async throws {
        var sizes: [String: Int64] = [:]
        for value in record.fields.values {
            for asset in value.assets {
                if let checksum = asset.fileChecksum { sizes[checksum] = asset.size ?? 0 }
            }
        }
        let rows: [SQLFragment] = sizes.map { "(\(bind: recordID), \(bind: storeID), \(bind: $0.key), \(bind: $0.value))" }
        for chunk in rows.chunked(100) {
            try await sql.execute("INSERT INTO record_assets (record_id, store_id, checksum, size) VALUES " + SQLFragment.joined(chunk, separator: ", "))
        }
    }
}

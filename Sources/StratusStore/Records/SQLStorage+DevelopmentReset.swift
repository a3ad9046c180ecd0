import StratusEngine

extension SQLStorageReader {
    func developmentStores(_ container: String) -> SQLFragment {
        "SELECT id FROM stores WHERE container = \(bind: container) AND environment = 'development'"
    }

    /// Records a reset deletes: all but the `Users` record each user has in the public database.
    func resetRecords(_ container: String) -> SQLFragment {
        "SELECT id FROM records WHERE store_id IN (\(developmentStores(container))) AND NOT (zone_name = '_defaultZone' AND record_type = 'Users')"
    }

    func developmentFootprint(container: String) async throws -> DevelopmentFootprint {
        func count(_ query: SQLFragment) async throws -> Int { Int(try await sql.query(query).first?[0].integer ?? 0) }
        return DevelopmentFootprint(
            records: try await count("SELECT COUNT(*) FROM (\(resetRecords(container))) doomed"),
            zones: try await count("SELECT COUNT(*) FROM zones WHERE store_id IN (\(developmentStores(container))) AND zone_name <> '_defaultZone'"),
            recordTypes: try await count("SELECT COUNT(*) FROM schema_types WHERE container = \(bind: container) AND environment = 'development'"),
            subscriptions: try await count("SELECT COUNT(*) FROM subscriptions WHERE container = \(bind: container) AND environment = 'development'"))
    }
}

extension SQLStorageWriter {
    func clearDevelopment(container: String) async throws {
        let stores = developmentStores(container)
        for row in try await sql.query(resetRecords(container)) {
            if let id = row[0].integer { try await deleteSideRows(id) }
        }
        try await sql.execute("DELETE FROM records WHERE id IN (\(resetRecords(container)))")
        try await sql.execute("DELETE FROM zones WHERE store_id IN (\(stores)) AND zone_name <> '_defaultZone'")
        try await sql.execute("DELETE FROM share_participants WHERE short_guid IN (SELECT short_guid FROM shares WHERE store_id IN (\(stores)))")
        try await sql.execute("DELETE FROM shares WHERE store_id IN (\(stores))")
        // Sync tokens from before the reset name changes that are gone: mark the log compacted up
        // to its newest entry, so they get the "token expired" answer and clients refetch.
        try await sql.execute(
            """
            UPDATE stores SET compacted_seq = (SELECT MAX(seq) FROM changes WHERE changes.store_id = stores.id)
            WHERE id IN (\(stores)) AND EXISTS (SELECT 1 FROM changes WHERE changes.store_id = stores.id)
            """)
        try await sql.execute("DELETE FROM changes WHERE store_id IN (\(stores))")
        try await sql.execute("DELETE FROM subscriptions WHERE container = \(bind: container) AND environment = 'development'")
        try await sql.execute("DELETE FROM schema_types WHERE container = \(bind: container) AND environment = 'development'")
        for (table, columns) in [
            ("security_roles", "name, created_ms"), ("role_members", "role, user_record_name"),
            ("record_type_grants", "record_type, role, permissions"),
        ] {
            try await sql.execute("DELETE FROM \(unsafeRaw: table) WHERE container = \(bind: container) AND environment = 'development'")
            try await sql.execute(
                """
                INSERT INTO \(unsafeRaw: table) (container, environment, \(unsafeRaw: columns))
                SELECT container, 'development', \(unsafeRaw: columns) FROM \(unsafeRaw: table)
                WHERE container = \(bind: container) AND environment = 'production'
                """)
        }
    }
}

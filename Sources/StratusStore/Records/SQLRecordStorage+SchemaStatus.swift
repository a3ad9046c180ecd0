import StratusEngine

extension SQLRecordStorage: SchemaStatusReporting {
    public func schemaStatus() async throws -> SchemaStatus {
        let known = database.dialect.migrations.map(\.version).max() ?? 0
        let applied = try await database.withReadTransaction { sql in
            try await sql.query("SELECT MAX(version) FROM stratus_migrations").first?[0].integer ?? 0
        }
        return SchemaStatus(applied: Int(applied), known: known)
    }
}

import StratusEngine
import StratusModel

/// Reads of the SQL record storage, inside one transaction.
class SQLStorageReader: StorageReader, @unchecked Sendable {
    // @unchecked: one instance is confined to the transaction that created it; the engine never
    // shares a transaction across tasks.
    let sql: any SQLExecutor
    let storage: SQLRecordStorage
    var dialect: any SQLDialect { storage.database.dialect }

    init(sql: any SQLExecutor, storage: SQLRecordStorage) {
        self.sql = sql
        self.storage = storage
    }

    /// The id of a store, or `nil` if nothing was ever written to it.
    func storeID(_ key: StoreKey) async throws -> Int64? {
        if let cached = storage.cachedStoreID(key) { return cached }
        let rows = try await sql.query(
            """
            SELECT id FROM stores WHERE container = \(bind: key.container) AND environment = \(bind: key.environment.rawValue)
            AND scope = \(bind: key.scope.rawValue) AND owner = \(bind: key.owner)
            """)
        guard let id = rows.first?[0].integer else { return nil }
        if mayCacheStoreID(id) { storage.cacheStoreID(key, id) }
        return id
    }

    /// Appended to reads of rows this transaction relies on staying as read (readers: nothing).
    var rowShareLock: String { "" }

    /// Whether a store id read in this transaction is known to be committed. Readers only see
    /// committed rows; the writer says no for stores it created itself (a rollback would free the id).
    func mayCacheStoreID(_ id: Int64) -> Bool { true }

    func container(_ identifier: String) async throws -> ContainerRow? {
        let rows = try await sql.query("SELECT identifier, developer_record_name FROM containers WHERE identifier = \(bind: identifier)")
        return rows.first.map { ContainerRow(identifier: $0[0].text ?? "", developerRecordName: $0[1].text ?? "") }
    }

    func containerForAPIToken(digest: String) async throws -> String? {
        try await sql.query("SELECT container FROM api_tokens WHERE digest = \(bind: digest)").first?[0].text
    }

    func userForWebAuthToken(digest: String, container: String) async throws -> UserRow? {
        let rows = try await sql.query(
            """
            SELECT users.container, users.user_record_name, users.name FROM web_auth_tokens
            JOIN users ON users.container = web_auth_tokens.container AND users.user_record_name = web_auth_tokens.user_record_name
            WHERE web_auth_tokens.digest = \(bind: digest) AND web_auth_tokens.container = \(bind: container)
            """)
        return rows.first.map { UserRow(container: $0[0].text ?? "", userRecordName: $0[1].text ?? "", name: $0[2].text ?? "") }
    }

    func schema(container: String, environment: DatabaseEnvironment) async throws -> Schema {
        var schema = Schema()
        for definition in try await recordTypeDefinitions(container: container, environment: environment) {
            schema.recordTypes[definition.schema.name] = definition.schema
        }
        return schema
    }

    func recordTypeDefinitions(container: String, environment: DatabaseEnvironment) async throws -> [RecordTypeDefinition] {
        let rows = try await sql.query("SELECT definition FROM schema_types WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue)")
        return try rows.map { try RecordTypeDefinition(text: $0[0].text ?? "{}") }
    }

    func zones(_ store: StoreKey) async throws -> [ZoneRow] {
        guard let id = try await storeID(store) else { return [] }
        let rows = try await sql.query("SELECT zone_name, change_seq FROM zones WHERE store_id = \(bind: id) ORDER BY zone_name")
        return rows.map { ZoneRow(zoneName: $0[0].text ?? "", changeSequence: $0[1].integer ?? 0) }
    }

    func zone(_ store: StoreKey, name: String) async throws -> ZoneRow? {
        guard let id = try await storeID(store) else { return nil }
        let rows = try await sql.query("SELECT zone_name, change_seq FROM zones WHERE store_id = \(bind: id) AND zone_name = \(bind: name)")
        return rows.first.map { ZoneRow(zoneName: $0[0].text ?? "", changeSequence: $0[1].integer ?? 0) }
    }

    func records(_ store: StoreKey, zoneName: String, names: [String]) async throws -> [String: RecordRow] {
        guard !names.isEmpty, let id = try await storeID(store) else { return [:] }
        let condition: SQLFragment =
            names.count == 1
            ? "records.record_name = \(bind: names[0])"
            : "records.record_name IN " + SQLFragment.bindList(names.map { .text($0) })
        let rows = try await sql.query(
            """
            SELECT \(unsafeRaw: recordColumns) FROM records
            WHERE records.store_id = \(bind: id) AND records.zone_name = \(bind: zoneName) AND \(condition)
            """)
        var result: [String: RecordRow] = [:]
        for row in rows {
            let record = decodeRecord(row)
            result[record.recordName] = record
        }
        return result
    }

    /// A renderer for `plan` in the store `id`, with the full-text slots it searches.
    func queryRenderer(_ store: StoreKey, id: Int64, plan: QueryPlan) async throws -> QueryRenderer {
        var slots: [String: Int] = [:]
        if plan.filters.contains(where: \.searchesText) {
            let definitions = try await recordTypeDefinitions(container: store.container, environment: store.environment)
            slots = definitions.first(where: { $0.schema.name == plan.recordType })?.fullTextSlots ?? [:]
        }
        return QueryRenderer(dialect: dialect, storeID: id, fullTextSlots: slots)
    }

    func count(_ store: StoreKey, plan: QueryPlan) async throws -> Int {
        guard let id = try await storeID(store) else { return 0 }
        let statement = try await queryRenderer(store, id: id, plan: plan).renderCount(plan)
        return Int(try await sql.query(statement).first?[0].integer ?? 0)
    }

    func aggregate(_ store: StoreKey, plan: AggregatePlan) async throws -> [AggregateRow] {
        guard let id = try await storeID(store) else { return [] }
        let statement = try await queryRenderer(store, id: id, plan: plan.query).renderAggregate(plan)
        return try await sql.query(statement).map { row in
            AggregateRow(
                key: SQLStorageReader.sortKey(row[0]), count: Int(row[1].integer ?? 0),
                values: (0..<plan.functions.count).map { SQLStorageReader.sortKey(row[2 + $0]) })
        }
    }

    static func sortKey(_ value: SQLValue) -> SortKeyValue {
        switch value {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .text(value)
        case .blob(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    func query(_ store: StoreKey, plan: QueryPlan) async throws -> [QueryRow] {
        guard let id = try await storeID(store) else { return [] }
        let statement = try await queryRenderer(store, id: id, plan: plan).render(plan)
        let rows = try await sql.query(statement)
        return try rows.map { row in
            let record = decodeRecord(row)
            let keys: [SortKeyValue] = (0..<plan.sorts.count).map { offset in
                switch row[recordColumnCount + offset] {
                case .null: return .null
                case .integer(let value): return .integer(value)
                case .real(let value): return .real(value)
                case .text(let value): return .text(value)
                case .blob(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
                }
            }
            return QueryRow(record: record, position: QueryPosition(sortKeys: keys, zoneName: record.zoneName, recordName: record.recordName))
        }
    }

    func referrers(_ store: StoreKey, zoneName: String, recordName: String) async throws -> [ReferrerRow] {
        guard let id = try await storeID(store) else { return [] }
        let rows = try await sql.query(
            """
            SELECT records.zone_name, records.record_name, record_refs.action FROM record_refs
            JOIN records ON records.id = record_refs.record_id
            WHERE record_refs.store_id = \(bind: id) AND record_refs.target_zone = \(bind: zoneName) AND record_refs.target_name = \(bind: recordName)
            """)
        return rows.compactMap { row in
            guard let action = ReferenceAction(rawValue: row[2].text ?? "") else { return nil }
            return ReferrerRow(zoneName: row[0].text ?? "", recordName: row[1].text ?? "", action: action)
        }
    }

    func changes(_ store: StoreKey, after sequence: Int64, limit: Int) async throws -> [ChangeRow] {
        guard let id = try await storeID(store) else { return [] }
        let rows = try await sql.query(
            """
            SELECT seq, zone_name, record_name, op FROM changes WHERE store_id = \(bind: id) AND seq > \(bind: sequence)
            ORDER BY seq LIMIT \(bind: limit)
            """)
        return rows.map {
            ChangeRow(
                sequence: $0[0].integer ?? 0, zoneName: $0[1].text ?? "", recordName: $0[2].text ?? "",
                operation: ChangeRow.Operation(rawValue: $0[3].text ?? "") ?? .save)
        }
    }

    func sequenceState(_ store: StoreKey) async throws -> SequenceState {
        guard let id = try await storeID(store) else { return SequenceState(last: 0, compacted: 0) }
        let row = try await sql.query("SELECT last_seq, compacted_seq FROM stores WHERE id = \(bind: id)").first
        return SequenceState(last: row?[0].integer ?? 0, compacted: row?[1].integer ?? 0)
    }

    func zoneChanges(
        _ store: StoreKey, zoneName: String, after sequence: Int64, includeDeletions: Bool,
        limit: Int
    ) async throws -> [ZoneChange] {
        guard let id = try await storeID(store) else { return [] }
        var statement: SQLFragment = """
            SELECT record_name, seq, 0, record_type FROM records WHERE store_id = \(bind: id) AND zone_name = \(bind: zoneName) AND seq > \(bind: sequence)
            """
        if includeDeletions {
            // A name deleted several times yields its last deletion only; a name recreated since
            // is reported by the records branch instead. That deletion's type is read back by its
            // primary key (store, sequence): the name's type may have differed between deletions.
            statement.append(
                """
                 UNION ALL
                SELECT latest.record_name, latest.seq, 1, deletion.record_type FROM (
                    SELECT changes.record_name, MAX(changes.seq) AS seq FROM changes
                    WHERE changes.store_id = \(bind: id) AND changes.zone_name = \(bind: zoneName) AND changes.op = 'delete' AND changes.seq > \(bind: sequence)
                    AND NOT EXISTS (SELECT 1 FROM records WHERE records.store_id = changes.store_id AND records.zone_name = changes.zone_name AND records.record_name = changes.record_name)
                    GROUP BY changes.record_name) latest
                JOIN changes deletion ON deletion.store_id = \(bind: id) AND deletion.seq = latest.seq
                """)
        }
        statement.append(" ORDER BY 2 LIMIT \(bind: limit)")
        return try await sql.query(statement).map {
            ZoneChange(
                recordName: $0[0].text ?? "", sequence: $0[1].integer ?? 0, deleted: ($0[2].integer ?? 0) == 1,
                recordType: $0[3].text)
        }
    }

    func changedZones(_ store: StoreKey, after sequence: Int64, limit: Int) async throws -> [ZoneRow] {
        guard let id = try await storeID(store) else { return [] }
        let rows = try await sql.query(
            """
            SELECT zone_name, MAX(seq) AS latest FROM changes WHERE store_id = \(bind: id) AND seq > \(bind: sequence)
            GROUP BY zone_name ORDER BY latest LIMIT \(bind: limit)
            """)
        return rows.map { ZoneRow(zoneName: $0[0].text ?? "", changeSequence: $0[1].integer ?? 0) }
    }
}

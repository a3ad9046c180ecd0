import Foundation
import StratusEngine
import StratusModel

/// Writes of the SQL record storage, inside one write transaction. Change-log sequences are
/// allocated in memory, and they and the change-log entries are written once, just before commit
/// (`flushPending`).
///
/// With concurrent writers (PostgreSQL) the writer locks what it is about to change, through the
/// dialect: a private store at its first read in the transaction (so change tags, sequences,
/// create-if-absent and reference checks see no other writer until commit), and in a public
/// database only the records it reads or writes, with sequences from a shared counter.
final class SQLStorageWriter: SQLStorageReader, StorageWriter, @unchecked Sendable {
    // @unchecked: confined to its transaction, like the reader.
    var sequences: [Int64: (last: Int64, dirty: Bool)] = [:]
    /// Stores created in this transaction: not cached until committed.
    var createdStores: Set<Int64> = []
    /// Stores this transaction holds the writer's lock of, or that need none (public).
    var lockedStores: Set<Int64> = []
    /// Public stores: their sequences come from `dialect.unlockedSequences`.
    var unlockedStores: Set<Int64> = []
    /// Shared sequences taken and not used yet (taken in growing blocks: a batch of 200 public
    /// saves takes five statements' worth, not 200). Unused ones are gaps, which public stores,
    /// without change feeds, allow.
    var reservedSequences: [Int64] = []
    /// Change-log entries of this transaction, inserted together before commit.
    var pendingChanges: [SQLFragment] = []
    /// Shared sequences taken so far in this transaction (sizes the next block).
    private var taken = 0
    /// Record names (store, zone, name) locked in public stores.
    var lockedRecords: Set<String> = []

    override func mayCacheStoreID(_ id: Int64) -> Bool { !createdStores.contains(id) }

    override var rowShareLock: String { dialect.lockRowsForShare }

    override func storeID(_ key: StoreKey) async throws -> Int64? {
        guard let id = try await super.storeID(key) else {
            // With concurrent writers a missing store is created at the first read, so the lock
            // covers that read too: two first writes into a new store must not both find it empty.
            guard !dialect.serializesWriters else { return nil }
            return try await createStore(key)
        }
        try await lock(id, key)
        return id
    }

    /// Takes the store's writer lock the first time this transaction sees the store.
    private func lock(_ id: Int64, _ key: StoreKey) async throws {
        guard lockedStores.insert(id).inserted else { return }
        if key.scope == .public, !dialect.serializesWriters {
            unlockedStores.insert(id)
        } else if let statement = dialect.lockStore(id) {
            let last = try await sql.query(statement).first?[0].integer ?? 0
            sequences[id] = (last, false)
        }
    }

    override func records(_ store: StoreKey, zoneName: String, names: [String]) async throws -> [String: RecordRow] {
        if let id = try await storeID(store) { try await lockRecords(id, zoneName: zoneName, names: names) }
        return try await super.records(store, zoneName: zoneName, names: names)
    }

    /// In a public store, locks records by name before they are read or written, so a concurrent
    /// writer of the same record waits (its change-tag check then sees this write).
    private func lockRecords(_ id: Int64, zoneName: String, names: [String]) async throws {
        guard unlockedStores.contains(id) else { return }
        let fresh = Set(names).filter { lockedRecords.insert("\(id)/\(zoneName)/\($0)").inserted }
        guard !fresh.isEmpty, let statement = dialect.lockRecords(storeID: id, zoneName: zoneName, names: fresh.sorted()) else { return }
        try await sql.execute(statement)
    }

    func ensureStore(_ key: StoreKey) async throws -> Int64 {
        if let id = try await storeID(key) { return id }
        return try await createStore(key)
    }

    private func createStore(_ key: StoreKey) async throws -> Int64 {
        // Another writer may create the same store at the same moment: the conflict waits for
        // it, and the store is then read back like any other.
        let rows = try await sql.query(
            """
            INSERT INTO stores (container, environment, scope, owner, last_seq)
            VALUES (\(bind: key.container), \(bind: key.environment.rawValue), \(bind: key.scope.rawValue), \(bind: key.owner), 0)
            ON CONFLICT (container, environment, scope, owner) DO NOTHING
            RETURNING id
            """)
        if let id = rows.first?[0].integer {
            createdStores.insert(id)
            try await lock(id, key)
            return id
        }
        guard let id = try await super.storeID(key) else { throw StorageFailure("could not create store \(key)") }
        try await lock(id, key)
        return id
    }

    func nextSequence(_ storeID: Int64) async throws -> Int64 {
        if unlockedStores.contains(storeID) {
            if reservedSequences.isEmpty, let shared = dialect.unlockedSequences(min(64, max(1, taken * 8))) {
                reservedSequences = try await sql.query(shared).compactMap { $0[0].integer }.reversed()
                taken += reservedSequences.count
            }
            guard let next = reservedSequences.popLast() else { throw StorageFailure("no sequence returned") }
            return next
        }
        var current: Int64
        if let known = sequences[storeID] {
            current = known.last
        } else {
            current = try await sql.query("SELECT last_seq FROM stores WHERE id = \(bind: storeID)").first?[0].integer ?? 0
        }
        current += 1
        sequences[storeID] = (current, true)
        return current
    }

    /// Writes what this transaction deferred: its change-log entries (100 to a statement) and
    /// each store's last sequence. Call once, just before commit.
    func flushPending() async throws {
        for chunk in pendingChanges.chunked(100) {
            try await sql.execute(
                "INSERT INTO changes (store_id, seq, zone_name, record_name, op, at_ms, record_type) VALUES " + SQLFragment.joined(chunk, separator: ", "))
        }
        pendingChanges.removeAll()
        for (storeID, state) in sequences where state.dirty {
            try await sql.execute("UPDATE stores SET last_seq = \(bind: state.last) WHERE id = \(bind: storeID)")
        }
        sequences.removeAll()
    }

    /// Queues a change-log entry; `flushPending` inserts the transaction's entries together. A
    /// record's deletion keeps its `recordType` (the feed reports it; the record row is gone).
    func appendChange(
        _ storeID: Int64, sequence: Int64, zoneName: String, recordName: String, operation: ChangeRow.Operation,
        recordType: String? = nil
    ) {
        pendingChanges.append(
            "(\(bind: storeID), \(bind: sequence), \(bind: zoneName), \(bind: recordName), \(bind: operation.rawValue), \(bind: nowMilliseconds()), \(bind: recordType.map(SQLValue.text) ?? .null))")
    }

    func createContainer(_ container: ContainerRow) async throws {
        try await sql.execute(
            """
            INSERT INTO containers (identifier, developer_record_name, created_ms)
            VALUES (\(bind: container.identifier), \(bind: container.developerRecordName), \(bind: nowMilliseconds()))
            """)
    }

    func addAPIToken(digest: String, container: String) async throws {
        try await sql.execute("INSERT INTO api_tokens (digest, container, created_ms) VALUES (\(bind: digest), \(bind: container), \(bind: nowMilliseconds()))")
    }

    func addUser(_ user: UserRow, webAuthTokenDigest: String) async throws {
        try await sql.execute(
            """
            INSERT INTO users (container, user_record_name, name, created_ms)
            VALUES (\(bind: user.container), \(bind: user.userRecordName), \(bind: user.name), \(bind: nowMilliseconds()))
            """)
        try await sql.execute(
            """
            INSERT INTO web_auth_tokens (digest, container, user_record_name, created_ms)
            VALUES (\(bind: webAuthTokenDigest), \(bind: user.container), \(bind: user.userRecordName), \(bind: nowMilliseconds()))
            """)
    }

    func lockSchema(container: String, environment: DatabaseEnvironment) async throws {
        if let statement = dialect.lockSchema(container: container, environment: environment.rawValue) {
            try await sql.execute(statement)
        }
    }

    func saveRecordType(_ recordType: RecordTypeSchema, container: String, environment: DatabaseEnvironment) async throws {
        let previous = try await recordTypeDefinitions(container: container, environment: environment)
            .first(where: { $0.schema.name == recordType.name })
        var definition = RecordTypeDefinition(schema: recordType, fullTextSlots: [:])
        definition.assignFullTextSlots(previous: previous?.fullTextSlots ?? [:])
        try await sql.execute(
            """
            INSERT INTO schema_types (container, environment, record_type, definition)
            VALUES (\(bind: container), \(bind: environment.rawValue), \(bind: recordType.name), \(bind: definition.json.serializedString))
            ON CONFLICT (container, environment, record_type) DO UPDATE SET definition = excluded.definition
            """)
        let manager = IndexManager(dialect: dialect, sql: sql)
        try await manager.createIndexes(for: recordType)
        for (field, slot) in definition.fullTextSlots where previous?.fullTextSlots[field] == nil {
            guard let fieldSchema = recordType.fields[field] else { continue }
            try await manager.backfillFullText(
                recordType: recordType.name, field: field, slot: slot, isList: fieldSchema.type.isList,
                container: container, environment: environment)
        }
    }

    func createZone(_ store: StoreKey, name: String) async throws -> Bool {
        let id = try await ensureStore(store)
        if try await zone(store, name: name) != nil { return false }
        let sequence = try await nextSequence(id)
        try await sql.execute("INSERT INTO zones (store_id, zone_name, change_seq) VALUES (\(bind: id), \(bind: name), \(bind: sequence))")
        appendChange(id, sequence: sequence, zoneName: name, recordName: "", operation: .zoneCreate)
        return true
    }

    func deleteZone(_ store: StoreKey, name: String) async throws {
        guard let id = try await storeID(store) else { return }
        let inZone: SQLFragment = "SELECT id FROM records WHERE store_id = \(bind: id) AND zone_name = \(bind: name)"
        try await sql.execute("DELETE FROM record_refs WHERE record_id IN (\(inZone))")
        try await sql.execute("DELETE FROM list_values WHERE record_id IN (\(inZone))")
        try await sql.execute("DELETE FROM record_assets WHERE record_id IN (\(inZone))")
        for row in try await sql.query(inZone) {
            if let recordID = row[0].integer { try await sql.execute(dialect.fullTextDeleteRecord(recordID)) }
        }
        try await sql.execute("DELETE FROM records WHERE store_id = \(bind: id) AND zone_name = \(bind: name)")
        try await sql.execute("DELETE FROM zones WHERE store_id = \(bind: id) AND zone_name = \(bind: name)")
        try await deleteShares(storeID: id, zoneName: name)
        let sequence = try await nextSequence(id)
        appendChange(id, sequence: sequence, zoneName: name, recordName: "", operation: .zoneDelete)
    }

    func saveRecord(_ store: StoreKey, record: RecordRow, encodedFields: String?, recordType: RecordTypeSchema, replacing: Bool) async throws -> RecordRow {
        let id = try await ensureStore(store)
        try await lockRecords(id, zoneName: record.zoneName, names: [record.recordName])
        let sequence = try await nextSequence(id)
        var saved = record
        saved.changeTag = String(sequence, radix: 36)
        // No RETURNING on SQLite: it runs as a trigger, which makes the statement open a statement
        // journal and copy every page it touches (a large share of the insert's cost); the
        // id is read back by the unique key instead, from pages the insert just brought into cache.
        // PostgreSQL returns it at no cost, saving that round trip.
        let returning = dialect.returningIsCheap ? " RETURNING id" : ""
        let inserted = try await sql.query(
            """
            INSERT INTO records (store_id, zone_name, record_name, record_type, change_tag, seq, fields, created_ms, created_by, modified_ms, modified_by)
            VALUES (\(bind: id), \(bind: saved.zoneName), \(bind: saved.recordName), \(bind: saved.recordType), \(bind: saved.changeTag),
                    \(bind: sequence), \(bind: encodedFields ?? RecordRow.encodedFields(saved.fields)), \(bind: saved.created.timestamp), \(bind: saved.created.userRecordName),
                    \(bind: saved.modified.timestamp), \(bind: saved.modified.userRecordName))
            ON CONFLICT (store_id, zone_name, record_name) DO UPDATE SET
                record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, fields = excluded.fields,
                modified_ms = excluded.modified_ms, modified_by = excluded.modified_by\(unsafeRaw: returning)
            """)
        let rows =
            dialect.returningIsCheap
            ? inserted
            : try await sql.query(
                """
                SELECT id FROM records WHERE store_id = \(bind: id) AND zone_name = \(bind: saved.zoneName) AND record_name = \(bind: saved.recordName)
                """)
        guard let recordID = rows.first?[0].integer else { throw StorageFailure("record insert left no row") }
        if replacing { try await deleteSideRows(recordID) }
        try await writeSideRows(recordID, storeID: id, store: store, record: saved, recordType: recordType)
        appendChange(id, sequence: sequence, zoneName: saved.zoneName, recordName: saved.recordName, operation: .save)
        return saved
    }

    func deleteRecord(_ store: StoreKey, zoneName: String, recordName: String) async throws {
        guard let id = try await storeID(store) else { return }
        try await lockRecords(id, zoneName: zoneName, names: [recordName])
        // Found first, then deleted by id: RETURNING would open a statement journal (see saveRecord).
        let rows = try await sql.query(
            """
            SELECT id, record_type FROM records WHERE store_id = \(bind: id) AND zone_name = \(bind: zoneName) AND record_name = \(bind: recordName)
            """)
        guard let recordID = rows.first?[0].integer else { return }
        try await sql.execute("DELETE FROM records WHERE id = \(bind: recordID)")
        try await deleteSideRows(recordID)
        let sequence = try await nextSequence(id)
        appendChange(id, sequence: sequence, zoneName: zoneName, recordName: recordName, operation: .delete, recordType: rows.first?[1].text)
    }

    /// Per store, the horizon is the entry before the first one written at or after the cutoff.
    /// Entries are written in sequence order with the clock's time, so walking the primary key
    /// from the store's oldest entry reads only what is about to be deleted (no index on `at_ms`
    /// for every write to maintain). Should the clock step back, entries after a newer one wait
    /// for a later compaction: the log is never cut past an entry newer than the cutoff.
    func compactChangeLog(before cutoffMilliseconds: Int64) async throws -> Int {
        var removed = 0
        for store in try await sql.query("SELECT id FROM stores") {
            guard let storeID = store[0].integer else { continue }
            let firstKept = try await sql.query(
                """
                SELECT seq FROM changes WHERE store_id = \(bind: storeID) AND at_ms >= \(bind: cutoffMilliseconds) ORDER BY seq LIMIT 1
                """
            ).first?[0].integer
            let horizon: Int64
            if let firstKept {
                horizon = firstKept - 1
            } else {
                guard let last = try await sql.query("SELECT MAX(seq) FROM changes WHERE store_id = \(bind: storeID)").first?[0].integer else { continue }
                horizon = last
            }
            let count = try await sql.query("SELECT COUNT(*) FROM changes WHERE store_id = \(bind: storeID) AND seq <= \(bind: horizon)").first?[0].integer ?? 0
            guard count > 0 else { continue }
            try await sql.execute("DELETE FROM changes WHERE store_id = \(bind: storeID) AND seq <= \(bind: horizon)")
            try await sql.execute("UPDATE stores SET compacted_seq = \(bind: horizon) WHERE id = \(bind: storeID) AND compacted_seq < \(bind: horizon)")
            removed += Int(count)
        }
        return removed
    }

    func deleteSideRows(_ recordID: Int64) async throws {
        try await sql.execute("DELETE FROM record_refs WHERE record_id = \(bind: recordID)")
        try await sql.execute("DELETE FROM list_values WHERE record_id = \(bind: recordID)")
        try await sql.execute("DELETE FROM record_assets WHERE record_id = \(bind: recordID)")
        try await sql.execute(dialect.fullTextDeleteRecord(recordID))
    }

    /// References with an action, every list element, and the text of SEARCHABLE fields.
    func writeSideRows(_ recordID: Int64, storeID: Int64, store: StoreKey, record: RecordRow, recordType: RecordTypeSchema) async throws {
        var references: [SQLFragment] = []
        var listValues: [SQLFragment] = []
        for (name, value) in record.fields {
            for reference in value.references where reference.action != .none {
                let targetZone = reference.zoneID?.zoneName ?? record.zoneName
                references.append("(\(bind: recordID), \(bind: storeID), \(bind: targetZone), \(bind: reference.recordName), \(bind: reference.action.rawValue))")
            }
            if case .list(let elementType, let elements) = value, elementType != .location, elementType != .asset {
                for stored in FieldPaths.distinctListValues(elements) {
                    listValues.append("(\(bind: recordID), \(bind: storeID), \(bind: record.recordType), \(bind: name), \(bind: stored))")
                }
            }
        }
        for chunk in references.chunked(100) {
            try await sql.execute("INSERT INTO record_refs (record_id, store_id, target_zone, target_name, action) VALUES " + SQLFragment.joined(chunk, separator: ", "))
        }
        for chunk in listValues.chunked(100) {
            try await sql.execute("INSERT INTO list_values (record_id, store_id, record_type, field, value) VALUES " + SQLFragment.joined(chunk, separator: ", "))
        }
        try await writeAssetRows(recordID, storeID: storeID, record: record)
        guard let definition = try await searchableSlots(recordType, store: store) else { return }
        for (field, slot) in definition {
            guard let text = record.fields[field]?.searchableText else { continue }
            for statement in dialect.fullTextUpsert(documentID: recordID * 256 + Int64(slot), text: text) {
                try await sql.execute(statement)
            }
        }
    }

    /// Full-text slots of the type's SEARCHABLE fields, or `nil` when it has none (the common case,
    /// answered without a query).
    func searchableSlots(_ recordType: RecordTypeSchema, store: StoreKey) async throws -> [String: Int]? {
        guard recordType.fields.values.contains(where: { $0.indexes.contains(.searchable) }) else { return nil }
        if let cached = slotCache[recordType.name] { return cached }
        let rows = try await sql.query(
            """
            SELECT definition FROM schema_types WHERE container = \(bind: store.container)
            AND environment = \(bind: store.environment.rawValue) AND record_type = \(bind: recordType.name)
            """)
        let slots = try rows.first.map { try RecordTypeDefinition(text: $0[0].text ?? "{}").fullTextSlots } ?? [:]
        slotCache[recordType.name] = slots
        return slots
    }

    var slotCache: [String: [String: Int]] = [:]
}

struct StorageFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension SQLFragment {
    static func joined(_ parts: ArraySlice<SQLFragment>, separator: String) -> SQLFragment {
        joined(Array(parts), separator: separator)
    }
}

extension FieldValue {
    /// The text a SEARCHABLE field contributes to full-text search.
    var searchableText: String? {
        switch self {
        case .string(let text): return text
        case .list(_, let elements): return elements.compactMap(\.searchableText).joined(separator: " ")
        default: return nil
        }
    }
}

import StratusEngine
import StratusStore

/// PostgreSQL's SQL. Fields stay the stored JSON text and are read with `::json` path operators
/// cast to the field's type; text compares with the "C" collation (byte order, as SQLite's
/// BINARY), NULL sorts first ascending as in SQLite. Full text is a `tsvector` of the tokens
/// `TextTokenizer` makes, so both backends match the same tokens.
struct PostgresDialect: SQLDialect {
    var migrations: [SQLMigration] {
        [
            SQLMigration(version: PostgresBaseline.version, statements: PostgresBaseline.statements),
            SQLMigration(version: FleetTables.version, statements: FleetTables.statements),
            SQLMigration(version: ConsoleTables.version, statements: ConsoleTables.statements),
        ]
    }

    func jsonExtract(_ path: [String], as kind: SQLValueKind) -> String {
        let text = "(fields::json #>> '{\(path.joined(separator: ","))}')"
        switch kind {
        case .text: return "(\(text) COLLATE \"C\")"
        case .integer: return "(\(text)::bigint)"
        case .real: return "(\(text)::float8)"
        }
    }

    func orderTerm(_ expression: String, ascending: Bool) -> String {
        expression + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    func distance(latitude: String, longitude: String) -> String {
        "stratus_distance(\(latitude), \(longitude), ?, ?)"
    }

    /// Built `CONCURRENTLY` after the transaction commits (`executeAfterCommit`), so a new index
    /// never blocks other tenants' writes for the length of its build. Field expressions sort NULL
    /// first, matching `orderTerm`, so the index serves the query's order in both directions.
    func createRecordIndex(name: String, expressions: [String], recordType: String) -> String {
        let keyColumns: Set<String> = ["store_id", "zone_name", "record_name"]
        let columns = expressions.map { keyColumns.contains($0) ? $0 : "\($0) NULLS FIRST" }
        return "CREATE INDEX CONCURRENTLY IF NOT EXISTS \"\(name)\" ON records (\(columns.joined(separator: ", "))) WHERE record_type = '\(recordType)'"
    }

    var serializesWriters: Bool { false }

    func lockStore(_ storeID: Int64) -> SQLFragment? {
        "SELECT last_seq FROM stores WHERE id = \(bind: storeID) FOR UPDATE"
    }

    /// Transaction-level advisory locks keyed by a 64-bit hash of (store, zone, name), taken in
    /// sorted order so two writers of overlapping batches do not deadlock.
    func lockRecords(storeID: Int64, zoneName: String, names: [String]) -> SQLFragment? {
        let keys = names.map { "\(storeID)/\(zoneName)/\($0)" }
        return "SELECT pg_advisory_xact_lock(key) FROM (SELECT DISTINCT hashtextextended(name, \(bind: PostgresLockSpace.record)) AS key FROM unnest(string_to_array(\(bind: keys.joined(separator: "\u{1F}")), \(bind: "\u{1F}"))) AS name ORDER BY key) AS keys"
    }

    func unlockedSequences(_ count: Int) -> SQLFragment? {
        count == 1 ? "SELECT nextval('public_change_seq')" : "SELECT nextval('public_change_seq') FROM generate_series(1, \(bind: count))"
    }

    var returningIsCheap: Bool { true }
    var lockRowsForUpdate: String { " FOR UPDATE" }
    var lockRowsForShare: String { " FOR SHARE" }

    func lockSchema(container: String, environment: String) -> SQLFragment? {
        "SELECT pg_advisory_xact_lock(hashtextextended(\(bind: container + "\u{1F}" + environment), \(bind: PostgresLockSpace.schema)))"
    }

    /// Delivered to every listening connection (`PostgresFleetListener`) when it commits.
    func announce(_ payload: String) -> SQLFragment? {
        "SELECT pg_notify(\(bind: PostgresDialect.eventChannel), \(bind: payload))"
    }

    static let eventChannel = "stratus_events"

    var lockMigrations: SQLFragment? { "SELECT pg_advisory_xact_lock(\(bind: PostgresLockSpace.migrations))" }

    func fullTextUpsert(documentID: Int64, text: String) -> [SQLFragment] {
        ["""
        INSERT INTO record_fts (doc_id, body) VALUES (\(bind: documentID), \(unsafeRaw: tokenVector)(\(bind: TextTokenizer.tokens(text).joined(separator: " "))))
        ON CONFLICT (doc_id) DO UPDATE SET body = excluded.body
        """]
    }

    func fullTextDeleteRecord(_ recordID: Int64) -> SQLFragment {
        "DELETE FROM record_fts WHERE doc_id BETWEEN \(bind: recordID * 256) AND \(bind: recordID * 256 + 255)"
    }

    /// Tokens are matched as exact lexemes (`::tsquery` applies no dictionary), as FTS5 matches
    /// quoted tokens. Tokens hold letters and digits only, so quoting cannot be escaped.
    func fullTextMatch(tokens: [String], matchAll: Bool, slot: Int) -> SQLFragment {
        let query = tokens.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
            .joined(separator: matchAll ? " & " : " | ")
        return "SELECT doc_id >> 8 FROM record_fts WHERE body @@ \(bind: query)::tsquery AND (doc_id & 255) = \(bind: slot)"
    }

    /// nil: the store reads the records and tokenizes them in Swift, like every other write.
    func fullTextBackfill(recordType: String, field: String, slot: Int, isList: Bool, storeFilter: SQLFragment) -> SQLFragment? { nil }

    /// Space-separated tokens to a tsvector of exactly those lexemes.
    private let tokenVector = "stratus_tokens"
}

/// The first key of each kind of advisory lock, so the kinds never collide.
enum PostgresLockSpace {
    static let migrations: Int64 = 0x5354_5241_0001
    static let record: Int64 = 0x5354_5241_0002
    static let schema: Int64 = 0x5354_5241_0003
    static let indexBuild: Int64 = 0x5354_5241_0004
}

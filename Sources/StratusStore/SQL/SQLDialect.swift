/// What differs between SQL backends. The record storage, query rendering and index management
/// are written once against this.
public protocol SQLDialect: Sendable {
    /// The schema migrations of this backend, in order. Applied once each, recorded by number.
    var migrations: [SQLMigration] { get }

    /// An expression reading a JSON path of the `fields` document of `records` as `kind`, so
    /// numbers compare as numbers and text compares byte by byte on every backend. `path` is
    /// already validated (identifiers only), e.g. `["rating", "value"]`.
    func jsonExtract(_ path: [String], as kind: SQLValueKind) -> String

    /// One ORDER BY term. NULL sorts first ascending and last descending on every backend
    /// (SQLite's order), so continuation markers mean the same everywhere.
    func orderTerm(_ expression: String, ascending: Bool) -> String

    /// An expression for the great-circle distance in metres from the point given by the two
    /// binds that follow (latitude, longitude) to the point (`latitude`, `longitude`).
    func distance(latitude: String, longitude: String) -> String

    /// `CREATE INDEX IF NOT EXISTS` for an expression index on `records`, limited to one record type.
    /// It runs through `SQLExecutor.executeAfterCommit`: a backend whose index builds lock the
    /// table builds it after the transaction, without blocking other writers.
    func createRecordIndex(name: String, expressions: [String], recordType: String) -> String

    // Concurrent writers. A backend with one writer at a time (SQLite) returns nil from each: its
    // transactions are serialized already.

    /// Whether write transactions run one at a time (SQLite), so nothing needs locking.
    var serializesWriters: Bool { get }

    /// Makes this transaction the only writer of a store until it commits, and reads the store's
    /// `last_seq` (one column). Taken at the writer's first read of a private store.
    func lockStore(_ storeID: Int64) -> SQLFragment?
    /// Makes this transaction the only writer of these records (present or not) until it commits.
    /// Used instead of `lockStore` for a public database, whose writers must not queue behind
    /// each other.
    func lockRecords(storeID: Int64, zoneName: String, names: [String]) -> SQLFragment?
    /// A query returning `count` new change sequences (one column, a row each) without a store
    /// lock, for public databases; unique across every store.
    func unlockedSequences(_ count: Int) -> SQLFragment?
    /// Whether `INSERT … RETURNING` costs no more than the insert (PostgreSQL); SQLite runs it as a
    /// trigger with a statement journal, so the store reads a new id back by its key instead.
    var returningIsCheap: Bool { get }
    /// Serializes schema changes of one container environment, so concurrent just-in-time changes
    /// merge onto each other instead of overwriting.
    func lockSchema(container: String, environment: String) -> SQLFragment?
    /// A statement that broadcasts `payload` to the other instances on the database, or nil when
    /// one process serves it.
    func announce(_ payload: String) -> SQLFragment?
    /// Appended to a SELECT to lock its rows until the transaction ends, against writers
    /// (`FOR UPDATE`) or only against writers that would change them (`FOR SHARE`); empty when
    /// writers are serialized anyway.
    var lockRowsForUpdate: String { get }
    var lockRowsForShare: String { get }
    /// Serializes migrations between processes that start at once.
    var lockMigrations: SQLFragment? { get }
    /// Serializes the request journal's writes between instances, so log ids are handed out in
    /// commit order (a live tail asking for ids above the newest it has then misses none) and two
    /// instances adding to the same rollup rows cannot deadlock.
    var lockRequestJournal: SQLFragment? { get }

    // Full-text search over SEARCHABLE fields. Each (record, field) pair is one document whose id
    // is `recordID * 256 + slot`, so a record's documents are a contiguous id range.

    /// Replaces the document of one (record, field).
    func fullTextUpsert(documentID: Int64, text: String) -> [SQLFragment]
    /// Removes every document of one record.
    func fullTextDeleteRecord(_ recordID: Int64) -> SQLFragment
    /// A subquery yielding record ids whose document in `slot` matches the tokens.
    func fullTextMatch(tokens: [String], matchAll: Bool, slot: Int) -> SQLFragment
    /// Indexes the existing values of a field that just became SEARCHABLE in one statement, or nil
    /// when the backend tokenizes in Swift (the store then reads the records and upserts each).
    func fullTextBackfill(recordType: String, field: String, slot: Int, isList: Bool, storeFilter: SQLFragment) -> SQLFragment?
}

/// What a JSON value is read as.
public enum SQLValueKind: Sendable {
    case text, integer, real
}

/// One numbered schema change.
public struct SQLMigration: Sendable {
    public var version: Int
    public var statements: [String]

    public init(version: Int, statements: [String]) {
        self.version = version
        self.statements = statements
    }
}

/// What differs between SQL backends. The record storage, query rendering and index management
/// are written once against this.
public protocol SQLDialect: Sendable {
    /// The schema migrations of this backend, in order. Applied once each, recorded by number.
    var migrations: [SQLMigration] { get }

    /// An expression reading a JSON path of the `fields` document of `records`:
    /// `path` is already validated (identifiers only), e.g. `["rating", "value"]`.
    func jsonExtract(_ path: [String]) -> String

    /// The rows of a JSON array at `path` of `records.fields`, as a table source with a `value`
    /// column (for list side-index backfills).
    func jsonArrayElements(_ path: [String]) -> String

    /// An expression for the great-circle distance in metres from the point given by the two
    /// binds that follow (latitude, longitude) to the point (`latitude`, `longitude`).
    func distance(latitude: String, longitude: String) -> String

    /// `CREATE INDEX IF NOT EXISTS` for an expression index on `records`, limited to one record type.
    func createRecordIndex(name: String, expressions: [String], recordType: String) -> String

    // Full-text search over SEARCHABLE fields. Each (record, field) pair is one document whose id
    // is `recordID * 256 + slot`, so a record's documents are a contiguous id range.

    /// Replaces the document of one (record, field).
    func fullTextUpsert(documentID: Int64, text: String) -> [SQLFragment]
    /// Removes every document of one record.
    func fullTextDeleteRecord(_ recordID: Int64) -> SQLFragment
    /// A subquery yielding record ids whose document in `slot` matches the tokens.
    func fullTextMatch(tokens: [String], matchAll: Bool, slot: Int) -> SQLFragment
    /// Indexes the existing values of a field that just became SEARCHABLE.
    func fullTextBackfill(recordType: String, field: String, slot: Int, isList: Bool, storeFilter: SQLFragment) -> SQLFragment
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

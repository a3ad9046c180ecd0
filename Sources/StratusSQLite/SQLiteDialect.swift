import Foundation
import StratusEngine
import StratusStore

/// SQLite's SQL: JSON1 for field paths, FTS5 for SEARCHABLE fields (holding the tokens
/// `TextTokenizer` makes, as query tokens are made), a registered function for great-circle distance.
struct SQLiteDialect: SQLDialect {
    var migrations: [SQLMigration] {
        [
            SQLMigration(
                version: 1,
                statements: CoreTables.statements + [
                    "CREATE VIRTUAL TABLE record_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')"
                ]),
            SQLMigration(version: 2, statements: CoreTables.changeFeedStatements),
            SQLMigration(version: 3, statements: NotificationTables.statements),
            SQLMigration(version: 4, statements: IdentityTables.statements),
            SQLMigration(version: 5, statements: AssetTables.statements),
            SQLMigration(version: 6, statements: ChangeFeedIndexes.statements),
            SQLMigration(version: 7, statements: ChangeLogWriteIndexes.statements),
            SQLMigration(version: 8, statements: ChangeLogLayout.statements),
            SQLMigration(version: FleetTables.version, statements: FleetTables.statements),
            SQLMigration(version: SharingTables.version, statements: SharingTables.statements),
            SQLMigration(version: ConsoleTables.version, statements: ConsoleTables.statements),
            SQLMigration(version: PushTables.version, statements: PushTables.statements(identity: "INTEGER PRIMARY KEY")),
            SQLMigration(version: RequestJournalTables.version, statements: RequestJournalTables.statements(identity: "INTEGER PRIMARY KEY")),
            SQLMigration(version: DeletedRecordTypes.version, statements: DeletedRecordTypes.statements),
            SQLMigration(version: HookOutboxTables.version, statements: HookOutboxTables.statements(identity: "INTEGER PRIMARY KEY")),
            SQLMigration(version: WebhookTables.version, statements: WebhookTables.statements),
        ]
    }

    func jsonPath(_ path: [String]) -> String {
        "'$" + path.map { ".\"\($0)\"" }.joined() + "'"
    }

    /// `json_extract` already yields the stored JSON type, so `kind` adds nothing (and index
    /// expressions stay as they were written before it existed).
    func jsonExtract(_ path: [String], as kind: SQLValueKind) -> String {
        "json_extract(fields, \(jsonPath(path)))"
    }

    func orderTerm(_ expression: String, ascending: Bool) -> String {
        expression + (ascending ? " ASC" : " DESC")
    }

    // One writer at a time (`GroupCommitWriter`): no locks needed.
    var serializesWriters: Bool { true }
    func lockStore(_ storeID: Int64) -> SQLFragment? { nil }
    func lockRecords(storeID: Int64, zoneName: String, names: [String]) -> SQLFragment? { nil }
    func unlockedSequences(_ count: Int) -> SQLFragment? { nil }
    var returningIsCheap: Bool { false }
    func lockSchema(container: String, environment: String) -> SQLFragment? { nil }
    var lockMigrations: SQLFragment? { nil }
    var lockRequestJournal: SQLFragment? { nil }
    var lockRowsForUpdate: String { "" }
    var lockRowsForShare: String { "" }
    func announce(_ payload: String) -> SQLFragment? { nil }

    func distance(latitude: String, longitude: String) -> String {
        "stratus_distance(\(latitude), \(longitude), ?, ?)"
    }

    func createRecordIndex(name: String, expressions: [String], recordType: String) -> String {
        "CREATE INDEX IF NOT EXISTS \"\(name)\" ON records (\(expressions.joined(separator: ", "))) WHERE record_type = '\(recordType)'"
    }

    /// The document is the text's tokens, not the text: FTS5's own folding differs from the query
    /// side's (it keeps "ß" where `TextTokenizer` folds it to "ss", and keeps noncharacters inside
    /// words), and a search must find what the query's tokens name.
    func fullTextUpsert(documentID: Int64, text: String) -> [SQLFragment] {
        ["INSERT INTO record_fts (rowid, body) VALUES (\(bind: documentID), \(bind: TextTokenizer.tokens(text).joined(separator: " ")))"]
    }

    func fullTextDeleteRecord(_ recordID: Int64) -> SQLFragment {
        "DELETE FROM record_fts WHERE rowid BETWEEN \(bind: recordID * 256) AND \(bind: recordID * 256 + 255)"
    }

    func fullTextMatch(tokens: [String], matchAll: Bool, slot: Int) -> SQLFragment {
        let expression = tokens.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            .joined(separator: matchAll ? " AND " : " OR ")
        return "SELECT rowid >> 8 FROM record_fts WHERE record_fts MATCH \(bind: expression) AND (rowid & 255) = \(bind: slot)"
    }

    /// nil: the store reads the records and tokenizes them in Swift, like every other write.
    func fullTextBackfill(recordType: String, field: String, slot: Int, isList: Bool, storeFilter: SQLFragment) -> SQLFragment? { nil }
}

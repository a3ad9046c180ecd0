import ArgumentParser
import Foundation
import StratusPostgres
import StratusServer

/// Where the data lives: `--data DIR` (env `STRATUS_DATA`, default `./stratus-data`) holds the
/// SQLite database, the signing secret and asset files; `--database URL` (env
/// `STRATUS_DATABASE_URL`) puts records, identities and the secret in PostgreSQL instead, shared
/// by every instance on that database.
struct DataOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Data folder (env STRATUS_DATA; default ./stratus-data).", valueName: "dir"))
    var data: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "PostgreSQL database, postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DATABASE[?target_session_attrs=read-write] (env STRATUS_DATABASE_URL); without it, SQLite in the data folder.",
            valueName: "url"))
    var database: String?

    var folder: DataFolder {
        DataFolder(path: data ?? ProcessInfo.processInfo.environment["STRATUS_DATA"] ?? "./stratus-data")
    }

    /// The PostgreSQL database, or nil for SQLite in the data folder.
    func databaseURL() throws -> PostgresURL? {
        guard let text = database ?? ProcessInfo.processInfo.environment["STRATUS_DATABASE_URL"], !text.isEmpty else { return nil }
        do {
            return try PostgresURL(text)
        } catch {
            throw DataFolderError("--database: \(error)")
        }
    }
}

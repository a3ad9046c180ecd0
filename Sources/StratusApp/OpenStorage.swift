import Logging
import ServiceLifecycle
import StratusEngine
import StratusPostgres
import StratusServer
import StratusSQLite

/// The storage a command runs on and the keys that sign its tokens and URLs.
struct OpenedStorage {
    let storage: any RecordStorage & Service
    let signingKeys: SigningKeys
    /// Where the keys are reread after a rotation.
    let signingKeySource: any SigningKeySource
    /// Set when the storage is PostgreSQL.
    let postgres: PostgresStorage?
}

/// Opens PostgreSQL when `--database` names it, else the data folder's SQLite database,
/// explaining a failure in terms of what to do next. The signing keys come from
/// `STRATUS_SECRET` when set, else from the database or the data folder.
func openStorage(_ data: DataOption, logger: Logger) async throws -> OpenedStorage {
    let fromEnvironment = try EnvironmentSecrets()
    if let url = try data.databaseURL() {
        do {
            let storage = try await PostgresStorage.open(url, logger: logger)
            let source: any SigningKeySource = fromEnvironment ?? storage
            return OpenedStorage(storage: storage, signingKeys: try await source.loadSigningKeys(), signingKeySource: source, postgres: storage)
        } catch let failure as PostgresStorage.StartFailure {
            throw DataFolderError(failure.description)
        }
    }
    let folder = data.folder
    try folder.create()
    let source: any SigningKeySource = fromEnvironment ?? folder
    let keys = try await source.loadSigningKeys()
    do {
        return OpenedStorage(
            storage: try await SQLiteStorage.open(path: folder.databasePath, logger: logger), signingKeys: keys,
            signingKeySource: source, postgres: nil)
    } catch {
        throw DataFolderError("cannot open the database \(folder.databasePath) (\(error)); if it is not a Stratus database, move it away or pick another folder with --data or STRATUS_DATA")
    }
}

import Logging
import ServiceLifecycle
import StratusEngine
import StratusPostgres
import StratusServer
import StratusSQLite

/// The storage a command runs on and the secret that signs its tokens and URLs.
struct OpenedStorage {
    let storage: any RecordStorage & Service
    let secret: [UInt8]
    /// Set when the storage is PostgreSQL.
    let postgres: PostgresStorage?
}

/// Opens PostgreSQL when `--database` names it, else the data folder's SQLite database,
/// explaining a failure in terms of what to do next.
func openStorage(_ data: DataOption, logger: Logger) async throws -> OpenedStorage {
    if let url = try data.databaseURL() {
        do {
            let storage = try await PostgresStorage.open(url, logger: logger)
            return OpenedStorage(storage: storage, secret: try await storage.sharedSecret(), postgres: storage)
        } catch let failure as PostgresStorage.StartFailure {
            throw DataFolderError(failure.description)
        }
    }
    let folder = data.folder
    try folder.create()
    let secret = try folder.loadOrCreateSecret()
    do {
        return OpenedStorage(storage: try await SQLiteStorage.open(path: folder.databasePath, logger: logger), secret: secret, postgres: nil)
    } catch {
        throw DataFolderError("cannot open the database \(folder.databasePath) (\(error)); if it is not a Stratus database, move it away or pick another folder with --data or STRATUS_DATA")
    }
}

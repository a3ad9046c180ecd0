import Logging
import StratusServer
import StratusSQLite

/// Opens the data folder's SQLite database, explaining a failure in terms of what to do next.
func openStorage(_ folder: DataFolder, logger: Logger) async throws -> SQLiteStorage {
    do {
        return try await SQLiteStorage.open(path: folder.databasePath, logger: logger)
    } catch {
        throw DataFolderError("cannot open the database \(folder.databasePath) (\(error)); if it is not a Stratus database, move it away or pick another folder with --data or STRATUS_DATA")
    }
}

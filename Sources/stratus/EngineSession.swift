import Logging
import StratusEngine
import StratusServer
import StratusSQLite

/// Opens the data folder's database for one administrative command, runs `body`, closes it.
/// Safe while a server runs on the same folder: SQLite's WAL mode lets both write.
func withEngine<T: Sendable>(_ folder: DataFolder, _ body: (Engine) async throws -> T) async throws -> T {
    let logger = makeLogger(defaultLevel: .warning)
    try folder.create()
    let secret = try folder.loadOrCreateSecret()
    let storage = try await openStorage(folder, logger: logger)
    let engine = Engine(storage: storage, secret: secret, logger: logger)
    let result: T
    do {
        result = try await body(engine)
    } catch {
        try? await storage.close()
        throw error
    }
    try await storage.close()
    return result
}

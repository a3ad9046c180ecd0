import Logging
import StratusEngine
import StratusServer

/// Opens the database for one administrative command, runs `body`, closes it. Safe while
/// servers run on the same data: SQLite's WAL mode lets both write, and PostgreSQL serves any
/// number of clients (servers see the change within their cache lifetimes).
func withEngine<T: Sendable>(_ data: DataOption, _ body: (Engine) async throws -> T) async throws -> T {
    let logger = makeLogger(defaultLevel: .warning)
    let opened = try await openStorage(data, logger: logger)
    let engine = Engine(storage: opened.storage, signingKeys: opened.signingKeys, signingKeySource: opened.signingKeySource, logger: logger)
    let result: T
    do {
        result = try await body(engine)
    } catch {
        try? await opened.storage.close()
        throw error
    }
    try await opened.storage.close()
    return result
}

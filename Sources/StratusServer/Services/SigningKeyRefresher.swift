import ServiceLifecycle
import StratusEngine

/// Rereads the signing keys on a schedule, so a `stratus secret rotate` run beside the server
/// takes effect without a restart: with SQLite nothing else tells the server; with PostgreSQL
/// the rotation is announced to every instance at once, and this catches an instance that missed
/// the announcement.
public struct SigningKeyRefresher: Service {
    public let engine: Engine
    public let interval: Duration

    public init(engine: Engine, interval: Duration) {
        self.engine = engine
        self.interval = interval
    }

    public func run() async throws {
        // Graceful shutdown cancels the loop; the sleep then throws and the service returns.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await engine.reloadSigningKeys()
            }
        }
    }
}

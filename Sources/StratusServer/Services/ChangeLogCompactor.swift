import Logging
import ServiceLifecycle
import StratusEngine

/// Compacts the change log on a schedule: entries (and so tombstones) older than `retention`
/// are dropped, and sync tokens from before that get a clear "token expired" error. Of several
/// instances on one database, the one holding the job's lease runs it (`Engine.runJobIfDue`).
public struct ChangeLogCompactor: Service {
    public let engine: Engine
    /// How long deletions stay fetchable through change feeds, in seconds.
    public let retention: Double
    /// Seconds between runs.
    public let interval: Double
    let logger: Logger

    public init(engine: Engine, retention: Double, interval: Double = 3600, logger: Logger) {
        self.engine = engine
        self.retention = retention
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        // Graceful shutdown cancels the loop; the sleep then throws and the service returns.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await engine.runJobIfDue("compact-change-log", every: interval) { [engine, retention] in
                        try await engine.compactChangeLogs(retention: retention)
                    }
                } catch {
                    logger.error("change log compaction failed; will retry: \(error)")
                }
                try await Task.sleep(for: .seconds(min(interval, Engine.jobCheckSeconds)))
            }
        }
    }
}

import Logging
import ServiceLifecycle
import StratusEngine
import Synchronization

/// Keeps every request for the console: a log row each (the Logs screen) and per-minute rollups
/// with latency histograms (the Telemetry screen), stored in the database so every instance of a
/// deployment shows the same.
///
/// `observe` only appends to an in-memory buffer; `run` writes the buffer once a second in one
/// transaction, and prunes the journal now and then (one instance at a time). Requests to the
/// console itself and to health, readiness and metrics probes are left out: they would drown the
/// application's traffic (a live tail would log its own polling).
public final class RequestJournal: RequestObserver, Service {
    /// Log rows held between two writes at most; past it rows are counted as dropped (rollups
    /// still count every request), so a database that stalls cannot grow the buffer without end.
    static let maximumBufferedRows = 50_000
    static let unjournaledEndpoints: Set<String> = ["/console", "/health", "/ready", "/metrics"]

    let engine: Engine
    let logRetentionSeconds: Double
    let maximumLogRows: Int
    let flushInterval: Duration
    let pruneInterval: Double
    let logger: Logger
    private let buffer = Mutex(Buffer())

    struct Buffer {
        var entries: [RequestLogEntry] = []
        var rollups: [RollupKey: RequestRollup] = [:]
        var dropped = 0
    }

    struct RollupKey: Hashable {
        var minute: Int64
        var operation: String
        var database: String
        var statusClass: Int
        var errorCode: String
    }

    public init(
        engine: Engine, retention: RequestLogRetention, flushInterval: Duration = .seconds(1),
        pruneInterval: Double = 600, logger: Logger
    ) {
        self.engine = engine
        self.logRetentionSeconds = retention.days * 86_400
        self.maximumLogRows = retention.rows
        self.flushInterval = flushInterval
        self.pruneInterval = pruneInterval
        self.logger = logger
    }

    public func observe(_ summary: RequestSummary) {
        // The console's Logs and Telemetry screens show the API: not the console itself, the
        // probes, nor paths outside the API (a browser's /favicon.ico).
        guard summary.isAPIRequest, !Self.unjournaledEndpoints.contains(summary.endpoint) else { return }
        let at = milliseconds(since1970: summary.finishedAt)
        let latency = summary.latency.components.seconds * 1_000_000 + summary.latency.components.attoseconds / 1_000_000_000_000
        let database = summary.database?.rawValue ?? ""
        let errorCode = summary.serverErrorCode ?? ""
        let operation = summary.operation.rawValue
        let entry = RequestLogEntry(
            atMilliseconds: at, uuid: summary.uuid, operation: operation, endpoint: summary.endpoint,
            container: summary.container ?? "", database: database,
            environment: summary.environment?.rawValue ?? "", caller: summary.caller ?? "",
            status: summary.status, latencyMicroseconds: latency, errorCode: errorCode)
        let key = RollupKey(
            minute: at / 60_000, operation: operation, database: database, statusClass: summary.status / 100,
            errorCode: errorCode)
        buffer.withLock { buffer in
            if buffer.entries.count < Self.maximumBufferedRows {
                buffer.entries.append(entry)
            } else {
                buffer.dropped += 1
            }
            buffer.rollups[
                key,
                default: RequestRollup(
                    minute: key.minute, operation: operation, database: database,
                    statusClass: key.statusClass, errorCode: errorCode)
            ]
            .add(latencyMicroseconds: latency)
        }
    }

    /// Writes what was observed since the last write. A batch the database refuses is dropped
    /// (and logged) rather than kept, so memory stays bounded.
    public func flush() async throws {
        let batch = buffer.withLock { buffer in
            let taken = buffer
            buffer = Buffer()
            return taken
        }
        if batch.dropped > 0 {
            logger.warning("request journal: \(batch.dropped) log rows were dropped because the database fell behind; telemetry still counts them")
        }
        try await engine.recordRequests(log: batch.entries, rollups: Array(batch.rollups.values))
    }

    public func run() async throws {
        // Graceful shutdown cancels the loop; the last second is written after it.
        try? await cancelWhenGracefulShutdown {
            var lastPruneCheck: ContinuousClock.Instant?
            while !Task.isCancelled {
                try await Task.sleep(for: self.flushInterval)
                await self.flushLoggingErrors()
                if lastPruneCheck.map({ ContinuousClock.now - $0 >= .seconds(Engine.jobCheckSeconds) }) ?? true {
                    lastPruneCheck = ContinuousClock.now
                    await self.pruneIfDue()
                }
            }
        }
        await flushLoggingErrors()
    }

    func flushLoggingErrors() async {
        do {
            try await flush()
        } catch {
            logger.error("request journal: could not write a batch of requests; they are left out of the console's logs and telemetry: \(error)")
        }
    }

    func pruneIfDue() async {
        do {
            try await engine.runJobIfDue("prune-request-journal", every: pruneInterval) { [engine, logRetentionSeconds, maximumLogRows] in
                _ = try await engine.pruneRequestJournal(logRetentionSeconds: logRetentionSeconds, maximumLogRows: maximumLogRows)
            }
        } catch {
            logger.error("request journal: pruning failed; will retry: \(error)")
        }
    }
}

/// How long the request log keeps a request, and how many it keeps at most whatever their age
/// (so a busy server cannot fill its disk). Telemetry's per-minute counts are kept a day.
public struct RequestLogRetention: Sendable, Equatable {
    public var days: Double
    public var rows: Int

    public init(days: Double = 7, rows: Int = 1_000_000) {
        self.days = days
        self.rows = rows
    }
}

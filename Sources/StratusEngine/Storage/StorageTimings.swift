/// Which kind of storage transaction a timing is of.
public enum StorageTransactionKind: String, Sendable, CaseIterable {
    case read
    case write
}

/// Told, for each storage transaction, how long it waited to begin (for SQLite's single writer
/// or a reader, for a pooled PostgreSQL connection) and how long it then ran until commit.
public protocol StorageTimingObserver: Sendable {
    func storageTransaction(_ kind: StorageTransactionKind, waited: Duration, ran: Duration)
}

/// Storage that can report its transactions' timings (the SQL backends).
public protocol StorageTimingSource: Sendable {
    /// From now on, every transaction is reported to `observer`; without one nothing is timed.
    func observeTimings(_ observer: any StorageTimingObserver)
}

/// How much work waits in the queues background jobs and clients drain, at one moment.
public struct QueueDepths: Sendable, Hashable {
    /// Change-log entries kept (what change feeds read and compaction trims).
    public var changeLog: Int64
    /// Notifications waiting in web-courier queues for their device to fetch them.
    public var courierFrames: Int64
    /// Pushes waiting for APNs or a Web Push service to accept them.
    public var pushQueue: Int64
    /// After-hook events waiting to run, and those given up on (server-logic.md).
    public var hookEvents: Int64
    public var failedHookEvents: Int64

    public init(changeLog: Int64, courierFrames: Int64, pushQueue: Int64, hookEvents: Int64 = 0, failedHookEvents: Int64 = 0) {
        self.changeLog = changeLog
        self.courierFrames = courierFrames
        self.pushQueue = pushQueue
        self.hookEvents = hookEvents
        self.failedHookEvents = failedHookEvents
    }
}

/// Reads the queue depths the metrics sample.
public protocol QueueDepthReader: Sendable {
    func queueDepths() async throws -> QueueDepths
}

extension Engine {
    /// The queue depths now, in one read transaction (the metrics sample it, never per request).
    public func queueDepths() async throws -> QueueDepths {
        try await storage.read { reader in try await reader.queueDepths() }
    }
}

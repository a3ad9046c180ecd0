/// One answered request as the console's Logs screen lists it. Holds nothing secret: the caller
/// is already an anonymised id, and neither the path's query string nor any record value is kept.
/// Absent values (no container, no database, no error) are empty strings.
public struct RequestLogEntry: Sendable, Hashable {
    /// Assigned by storage, growing with every row written; 0 before it is stored.
    public var id: Int64
    public var atMilliseconds: Int64
    public var uuid: String
    /// `query`, `modify`, `sign-in`…: a `RequestSummary.Operation` raw value.
    public var operation: String
    public var endpoint: String
    public var container: String
    /// `public`, `private` or `shared`.
    public var database: String
    public var environment: String
    public var caller: String
    public var status: Int
    public var latencyMicroseconds: Int64
    public var errorCode: String

    public init(
        id: Int64 = 0, atMilliseconds: Int64, uuid: String, operation: String, endpoint: String, container: String,
        database: String, environment: String, caller: String, status: Int, latencyMicroseconds: Int64, errorCode: String
    ) {
        self.id = id
        self.atMilliseconds = atMilliseconds
        self.uuid = uuid
        self.operation = operation
        self.endpoint = endpoint
        self.container = container
        self.database = database
        self.environment = environment
        self.caller = caller
        self.status = status
        self.latencyMicroseconds = latencyMicroseconds
        self.errorCode = errorCode
    }
}

/// Which request log rows to read: every set field must match. Newest first.
public struct RequestLogFilter: Sendable, Hashable {
    public var operation: String?
    public var database: String?
    public var caller: String?
    /// An exact HTTP status (`404`).
    public var status: Int?
    /// A status class by its hundreds digit (`4` for 4xx).
    public var statusClass: Int?
    public var errorCode: String?
    /// Only rows newer than this id (a live tail asks for what came after the last row it has).
    public var afterID: Int64?
    /// Only rows older than this id (the next page).
    public var beforeID: Int64?
    public var limit: Int

    public init(
        operation: String? = nil, database: String? = nil, caller: String? = nil, status: Int? = nil, statusClass: Int? = nil,
        errorCode: String? = nil, afterID: Int64? = nil, beforeID: Int64? = nil, limit: Int = 200
    ) {
        self.operation = operation
        self.database = database
        self.caller = caller
        self.status = status
        self.statusClass = statusClass
        self.errorCode = errorCode
        self.afterID = afterID
        self.beforeID = beforeID
        self.limit = limit
    }
}

/// The requests of one minute that share an operation, database, status class and error code:
/// their count and a latency histogram. Rows of several instances for the same key add up.
public struct RequestRollup: Sendable, Hashable {
    /// Upper bounds of the histogram's buckets, in microseconds; one more bucket holds the rest.
    public static let bucketBoundsMicroseconds: [Int64] = [
        250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 10_000_000,
    ]
    public static var bucketCount: Int { bucketBoundsMicroseconds.count + 1 }

    /// Whole minutes since 1970.
    public var minute: Int64
    public var operation: String
    /// `public`, `private`, `shared`, or empty when the request named none.
    public var database: String
    /// The hundreds digit of the status (2 for 2xx).
    public var statusClass: Int
    /// Empty for responses without a whole-request error.
    public var errorCode: String
    public var count: Int64
    public var totalLatencyMicroseconds: Int64
    /// `bucketCount` counts, one per bucket.
    public var buckets: [Int64]

    public init(
        minute: Int64, operation: String, database: String, statusClass: Int, errorCode: String, count: Int64 = 0,
        totalLatencyMicroseconds: Int64 = 0, buckets: [Int64] = Array(repeating: 0, count: RequestRollup.bucketCount)
    ) {
        self.minute = minute
        self.operation = operation
        self.database = database
        self.statusClass = statusClass
        self.errorCode = errorCode
        self.count = count
        self.totalLatencyMicroseconds = totalLatencyMicroseconds
        self.buckets = buckets
    }

    /// Counts one request.
    public mutating func add(latencyMicroseconds: Int64) {
        count += 1
        totalLatencyMicroseconds += latencyMicroseconds
        buckets[Self.bucket(of: latencyMicroseconds)] += 1
    }

    /// Adds another rollup's counts (same key or not: callers merge what they chart together).
    public mutating func merge(_ other: RequestRollup) {
        count += other.count
        totalLatencyMicroseconds += other.totalLatencyMicroseconds
        for index in buckets.indices { buckets[index] += other.buckets[index] }
    }

    static func bucket(of latency: Int64) -> Int {
        bucketBoundsMicroseconds.firstIndex { latency <= $0 } ?? bucketBoundsMicroseconds.count
    }

    /// The latency below which `fraction` of the requests fell, in microseconds, interpolated
    /// within its bucket; nil without requests. Past the last bound it is that bound.
    public func percentileMicroseconds(_ fraction: Double) -> Int64? {
        guard count > 0 else { return nil }
        let rank = max(1, fraction * Double(count))
        var below: Int64 = 0
        for (index, inBucket) in buckets.enumerated() where inBucket > 0 {
            guard Double(below + inBucket) >= rank else {
                below += inBucket
                continue
            }
            guard index < Self.bucketBoundsMicroseconds.count else { return Self.bucketBoundsMicroseconds.last! }
            let lower = index == 0 ? 0 : Self.bucketBoundsMicroseconds[index - 1]
            let upper = Self.bucketBoundsMicroseconds[index]
            let position = (rank - Double(below)) / Double(inBucket)
            return lower + Int64(Double(upper - lower) * position)
        }
        return Self.bucketBoundsMicroseconds.last!
    }
}

/// Reads of the request journal (the console's Logs and Telemetry screens).
public protocol TelemetryStorageReader: Sendable {
    func requestLog(_ filter: RequestLogFilter) async throws -> [RequestLogEntry]
    /// Every rollup from `minute` on (whole minutes since 1970), in no particular order.
    func requestRollups(fromMinute minute: Int64) async throws -> [RequestRollup]
}

/// Writes of the request journal: batches from each instance's buffer, and pruning.
public protocol TelemetryStorageWriter: TelemetryStorageReader {
    /// Waits until no other instance is writing its journal batch; held to the transaction's end.
    func lockRequestJournal() async throws
    func appendRequestLog(_ entries: [RequestLogEntry]) async throws
    /// Adds each rollup's counts to the stored row of its key (or stores it).
    func addRequestRollups(_ rollups: [RequestRollup]) async throws
    /// Drops log rows older than `logBeforeMilliseconds` and all but the newest `keepingRows`,
    /// and rollups before `rollupsBeforeMinute`. Returns the log rows removed.
    func pruneRequestJournal(logBeforeMilliseconds: Int64, keepingRows: Int, rollupsBeforeMinute: Int64) async throws -> Int
}

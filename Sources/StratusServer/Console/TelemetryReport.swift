import StratusEngine

/// What the Telemetry screen charts, folded from the journal's per-minute rollups: requests per
/// second over time, errors by `serverErrorCode`, and p50/p99 latency per operation.
struct TelemetryReport: Sendable {
    enum Range: String, CaseIterable, Sendable {
        case hour, day

        var minutes: Int64 { self == .hour ? 60 : 1440 }
        /// Minutes per bar: one a minute over an hour, one per quarter hour over a day.
        var binMinutes: Int64 { self == .hour ? 1 : 15 }
        var title: String { self == .hour ? "last hour" : "last day" }
    }

    struct OperationLatency: Sendable, Equatable {
        var operation: String
        var count: Int64
        var p50Microseconds: Int64
        var p99Microseconds: Int64
    }

    let range: Range
    /// The first minute of the first bar (whole minutes since 1970).
    let startMinute: Int64
    /// Requests in each bar, oldest first.
    let requestsPerBin: [Int64]
    let total: Int64
    /// Whole-request errors by code, most frequent first.
    let errors: [(code: String, count: Int64)]
    /// Every operation seen, busiest first.
    let latencies: [OperationLatency]

    init(rollups: [RequestRollup], range: Range, nowMinute: Int64) {
        self.range = range
        startMinute = nowMinute - range.minutes + 1
        var bins = Array(repeating: Int64(0), count: Int(range.minutes / range.binMinutes))
        var errorCounts: [String: Int64] = [:]
        var byOperation: [String: RequestRollup] = [:]
        var total: Int64 = 0
        for rollup in rollups where rollup.minute >= startMinute && rollup.minute <= nowMinute {
            bins[Int((rollup.minute - startMinute) / range.binMinutes)] += rollup.count
            total += rollup.count
            if !rollup.errorCode.isEmpty { errorCounts[rollup.errorCode, default: 0] += rollup.count }
            byOperation[rollup.operation, default: RequestRollup(minute: 0, operation: rollup.operation, database: "", statusClass: 0, errorCode: "")]
                .merge(rollup)
        }
        requestsPerBin = bins
        self.total = total
        errors = errorCounts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (code: $0.key, count: $0.value) }
        latencies = byOperation.values.sorted { ($0.count, $1.operation) > ($1.count, $0.operation) }.map { merged in
            OperationLatency(
                operation: merged.operation, count: merged.count, p50Microseconds: merged.percentileMicroseconds(0.5) ?? 0,
                p99Microseconds: merged.percentileMicroseconds(0.99) ?? 0)
        }
    }

    /// Requests per second in each bar.
    var ratePerBin: [Double] { requestsPerBin.map { Double($0) / Double(range.binMinutes * 60) } }
}

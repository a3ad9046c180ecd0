import Prometheus
import StratusEngine
import Synchronization

/// The server's Prometheus metrics, fed by the request summaries and scraped at `GET /metrics`.
///
/// Every label has a bounded set of values: operation kinds, database scopes, environments,
/// status classes, CKWS error codes, and container ids only from the operator's allow-list
/// (every other container is `other`). Record names, user ids and tokens never become labels.
public final class ServerMetrics: RequestObserver {
    /// Everything exposed; libraries reporting through swift-metrics land here too when the
    /// executable bootstraps `PrometheusMetricsFactory` on it.
    public let registry: PrometheusCollectorRegistry
    private let containerAllowList: Set<String>
    /// Each label set's counter and latency histogram, found with one lookup per request.
    private let requestSeries = Mutex<[RequestLabels: (requests: Counter, duration: DurationHistogram)]>([:])
    private let errorSeries = Mutex<[String: Counter]>([:])
    private let throttled: Counter
    private let courierOpen: (poll: Gauge, events: Gauge)
    private let process: ProcessGauges
    /// Storage, queues, asset bytes and refused connections.
    public let operations: OperationsInstruments

    /// Buckets for request latency: the fast path answers in well under a millisecond, a courier
    /// long poll takes its whole timeout.
    static let latencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
        .seconds(10), .seconds(30),
    ]

    public init(containerAllowList: Set<String> = [], registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.containerAllowList = containerAllowList
        throttled = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "stratus", metricName: "rate_limit_refusals", unitName: "total",
                helpText: "Requests refused with THROTTLED (rate limits and sign-in waits)."))
        let open = MetricNameDescriptor(
            namespace: "stratus", metricName: "courier_connections_open", unitName: "",
            helpText: "Web-courier long polls and Server-Sent Events streams open now.")
        courierOpen = (
            registry.makeGauge(descriptor: open, labels: [("kind", "poll")]),
            registry.makeGauge(descriptor: open, labels: [("kind", "events")])
        )
        process = ProcessGauges(registry: registry)
        operations = OperationsInstruments(registry: registry)
    }

    public func observe(_ summary: RequestSummary) {
        let database = summary.database?.rawValue ?? "none"
        let environment = summary.environment?.rawValue ?? "none"
        let container = summary.container.map { containerAllowList.contains($0) ? $0 : "other" } ?? "none"
        let series = self.series(
            RequestLabels(
                operation: summary.operation, database: database, environment: environment,
                statusClass: summary.status / 100, container: container))
        series.requests.increment()
        series.duration.record(summary.latency)
        // A 404 for a path outside the API (a browser's /favicon.ico) is counted as a request,
        // not as an API error.
        if let code = summary.serverErrorCode, summary.isAPIRequest {
            errorCounter(code).increment()
            if code == "THROTTLED" { throttled.increment() }
        }
    }

    /// A courier connection opened; call the returned closure when it closes.
    func courierOpened(events: Bool) -> @Sendable () -> Void {
        let gauge = events ? courierOpen.events : courierOpen.poll
        gauge.increment()
        return { gauge.decrement() }
    }

    /// The text exposition format (`text/plain; version=0.0.4`), with process gauges read now.
    public func exposition() -> [UInt8] {
        process.update()
        return registry.emitToBuffer()
    }

    private func series(_ labels: RequestLabels) -> (requests: Counter, duration: DurationHistogram) {
        requestSeries.withLock { series in
            if let found = series[labels] { return found }
            let requests = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "stratus", metricName: "requests", unitName: "total",
                    helpText: "Requests answered, by operation, database, environment, status class and container."),
                labels: labels.pairs)
            // The histogram leaves out status and container: its series multiply by the buckets.
            let duration = registry.makeDurationHistogram(
                descriptor: MetricNameDescriptor(
                    namespace: "stratus", metricName: "request_duration", unitName: "seconds",
                    helpText: "Time from a request's arrival to its response being ready."),
                labels: labels.durationPairs, buckets: Self.latencyBuckets)
            series[labels] = (requests, duration)
            return (requests, duration)
        }
    }

    private func errorCounter(_ code: String) -> Counter {
        errorSeries.withLock { series in
            if let counter = series[code] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "stratus", metricName: "request_errors", unitName: "total",
                    helpText: "Whole-request errors, by CKWS serverErrorCode."),
                labels: [("server_error_code", code)])
            series[code] = counter
            return counter
        }
    }
}

private struct RequestLabels: Hashable {
    var operation: RequestSummary.Operation
    var database: String
    var environment: String
    var statusClass: Int
    var container: String

    var pairs: [(String, String)] {
        durationPairs + [("status_class", "\(statusClass)xx"), ("container", container)]
    }

    var durationPairs: [(String, String)] { [("operation", operation.rawValue), ("database", database), ("environment", environment)] }
}

import Prometheus
import StratusEngine
import Synchronization

/// The instruments below the request level: storage transactions and their waits, queue depths,
/// asset bytes and connections refused at the cap. Labels are fixed small sets.
public final class OperationsInstruments: StorageTimingObserver {
    private let transactionDuration: [StorageTransactionKind: DurationHistogram]
    private let transactionWait: [StorageTransactionKind: DurationHistogram]
    private let changeLogDepth: Gauge
    private let courierDepth: Gauge
    private let pushDepth: Gauge
    private let hookDepth: Gauge
    private let failedHookDepth: Gauge
    private let assetBytesIn: Counter
    private let assetBytesOut: Counter
    private let refusedConnections: Counter
    /// Where queue depths are read, and when they last were: scrapes closer together than
    /// `queueSampleInterval` reuse the last sample, so no scraper can make the server count often.
    private let queueSampler = Mutex<(source: (@Sendable () async throws -> QueueDepths)?, last: ContinuousClock.Instant?)>((nil, nil))
    static let queueSampleInterval: Duration = .seconds(5)

    /// Storage transactions take from tens of microseconds (a cached read) to seconds (a large
    /// batch or a saturated writer).
    static let storageBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(5),
    ]

    init(registry: PrometheusCollectorRegistry) {
        let duration = MetricNameDescriptor(
            namespace: "stratus", subsystem: "storage", metricName: "transaction_duration", unitName: "seconds",
            helpText: "Storage transactions from their start to their commit, by kind.")
        let wait = MetricNameDescriptor(
            namespace: "stratus", subsystem: "storage", metricName: "transaction_wait", unitName: "seconds",
            helpText: "Time a storage transaction waited to start: for the SQLite writer or a reader, or for a pooled PostgreSQL connection.")
        var durations: [StorageTransactionKind: DurationHistogram] = [:], waits: [StorageTransactionKind: DurationHistogram] = [:]
        for kind in StorageTransactionKind.allCases {
            durations[kind] = registry.makeDurationHistogram(descriptor: duration, labels: [("kind", kind.rawValue)], buckets: Self.storageBuckets)
            waits[kind] = registry.makeDurationHistogram(descriptor: wait, labels: [("kind", kind.rawValue)], buckets: Self.storageBuckets)
        }
        transactionDuration = durations
        transactionWait = waits
        let depth = MetricNameDescriptor(
            namespace: "stratus", metricName: "queue_depth", unitName: "",
            helpText: "Entries waiting, sampled at scrapes: change_log (kept for change feeds), courier (notifications devices have not fetched), push (pushes the provider has not accepted).")
        changeLogDepth = registry.makeGauge(descriptor: depth, labels: [("queue", "change_log")])
        courierDepth = registry.makeGauge(descriptor: depth, labels: [("queue", "courier")])
        pushDepth = registry.makeGauge(descriptor: depth, labels: [("queue", "push")])
        hookDepth = registry.makeGauge(descriptor: depth, labels: [("queue", "hook_events")])
        failedHookDepth = registry.makeGauge(descriptor: depth, labels: [("queue", "hook_events_failed")])
        let bytes = MetricNameDescriptor(
            namespace: "stratus", metricName: "asset_bytes", unitName: "total",
            helpText: "Asset bytes received by uploads (in) and sent by downloads (out).")
        assetBytesIn = registry.makeCounter(descriptor: bytes, labels: [("direction", "in")])
        assetBytesOut = registry.makeCounter(descriptor: bytes, labels: [("direction", "out")])
        refusedConnections = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "stratus", metricName: "connections_refused", unitName: "total",
                helpText: "Connections answered 503 at the connection cap before a request was read (every connection was busy)."))
    }

    public func storageTransaction(_ kind: StorageTransactionKind, waited: Duration, ran: Duration) {
        transactionWait[kind]?.record(waited)
        transactionDuration[kind]?.record(ran)
    }

    func assetBytes(received: Int64) { assetBytesIn.increment(by: received) }

    func assetBytes(sent: Int64) { assetBytesOut.increment(by: sent) }

    func connectionRefused() { refusedConnections.increment() }

    /// Times `engine`'s storage transactions and samples its queues from now on.
    func attach(_ engine: Engine) {
        (engine.storage as? any StorageTimingSource)?.observeTimings(self)
        queueSampler.withLock { $0.source = { try await engine.queueDepths() } }
    }

    /// Reads the queue depths unless a recent scrape did; a failed read leaves the last values.
    func sampleQueues() async {
        let now = ContinuousClock.now
        let source: (@Sendable () async throws -> QueueDepths)? = queueSampler.withLock { sampler in
            if let last = sampler.last, now - last < Self.queueSampleInterval { return nil }
            sampler.last = now
            return sampler.source
        }
        guard let source, let depths = try? await source() else { return }
        changeLogDepth.set(depths.changeLog)
        courierDepth.set(depths.courierFrames)
        pushDepth.set(depths.pushQueue)
        hookDepth.set(depths.hookEvents)
        failedHookDepth.set(depths.failedHookEvents)
    }
}

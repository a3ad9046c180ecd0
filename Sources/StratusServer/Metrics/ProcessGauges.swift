import Foundation
import Prometheus

/// Memory and open file descriptors of this process, read from `/proc` when scraped (Linux; on
/// other systems the gauges stay 0).
struct ProcessGauges: Sendable {
    private let residentMemory: Gauge
    private let openDescriptors: Gauge

    init(registry: PrometheusCollectorRegistry) {
        residentMemory = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "stratus", subsystem: "process", metricName: "resident_memory", unitName: "bytes",
                helpText: "Resident memory of the server process."))
        openDescriptors = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "stratus", subsystem: "process", metricName: "open_fds", unitName: "",
                helpText: "File descriptors the server process holds open (sockets, database files)."))
    }

    func update() {
        // statm: sizes in pages; the second field is the resident set.
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        {
            residentMemory.set(Int64(pages * Int(sysconf(Int32(_SC_PAGESIZE)))))
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openDescriptors.set(Int64(descriptors.count))
        }
    }
}

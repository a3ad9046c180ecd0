import Hummingbird
import StratusEngine

/// Telemetry: requests per second, errors by `serverErrorCode` and p50/p99 latency per
/// operation over the last hour or day, from the request journal every instance writes.
extension ConsoleScreens {
    func telemetry(_ console: ConsoleRequest) async throws -> Response {
        let range = TelemetryReport.Range(rawValue: console["range"]) ?? .hour
        let nowMinute = nowMilliseconds() / 60_000
        let rollups = try await engine.requestRollups(fromMinute: nowMinute - range.minutes + 1)
        let report = TelemetryReport(rollups: rollups, range: range, nowMinute: nowMinute)
        let switcher = HTML.join(
            TelemetryReport.Range.allCases.map { option -> HTML in
                option == range
                    ? "<strong>\(option.title.capitalized)</strong>"
                    : "<a href=\"\(console.chrome.link("/console/telemetry", [("range", option.rawValue)]))\">\(option.title.capitalized)</a>"
            }, separator: " · ")
        guard report.total > 0 else {
            return console.page(
                "Telemetry",
                """
                <p class="muted">\(switcher)</p>
                \(ConsoleLayout.empty("No requests in the \(range.title).", "Charts appear once apps call this server: try the curl line on the <a href=\"\(console.chrome.link("/console"))\">Welcome</a> page. Every instance on this database counts here; the console's own pages are not counted."))
                """)
        }
        return console.page(
            "Telemetry",
            """
            <p class="muted">\(switcher) · all containers · \(report.total) requests · updated each second by every instance</p>
            <h2>Requests per second</h2>
            \(requestRateChart(report))
            <h2>Errors by serverErrorCode</h2>
            \(errorsSection(report))
            <h2>Latency per operation (p50 and p99)</h2>
            \(latencySection(report))
            """)
    }

    func requestRateChart(_ report: TelemetryReport) -> HTML {
        let binMinutes = report.range.binMinutes
        let tooltips = report.requestsPerBin.indices.map { index in
            let start = (report.startMinute + Int64(index) * binMinutes) * 60_000
            return "\(ConsoleFormat.time(start).dropLast(3)) UTC: \(report.requestsPerBin[index]) requests, \(SVGChart.number(report.ratePerBin[index]))/s"
        }
        let last = (report.startMinute + Int64(report.requestsPerBin.count - 1) * binMinutes) * 60_000
        return SVGChart.columns(
            report.ratePerBin, tooltips: tooltips, unit: "req/s",
            firstLabel: "\(ConsoleFormat.time(report.startMinute * 60_000).dropLast(3))",
            lastLabel: "\(ConsoleFormat.time(last).dropLast(3)) UTC", label: "Requests per second, \(report.range.title)")
    }

    func errorsSection(_ report: TelemetryReport) -> HTML {
        guard !report.errors.isEmpty else {
            return ConsoleLayout.empty("No errors in the \(report.range.title).", "Requests refused with a serverErrorCode (AUTHENTICATION_FAILED, THROTTLED, BAD_REQUEST…) are counted here.")
        }
        let chart = SVGChart.rows(
            report.errors.map { (label: $0.code, values: [Double($0.count)]) }, series: ["error"], unit: "requests",
            valueLabel: { SVGChart.number($0) }, label: "Errors by serverErrorCode")
        let rows: [[HTML]] = report.errors.map { ["<code>\($0.code)</code>", "\($0.count)"] }
        return chart + ConsoleLayout.table(headers: ["serverErrorCode", "Requests"], rows: rows, id: "errors")
    }

    func latencySection(_ report: TelemetryReport) -> HTML {
        let chart = SVGChart.rows(
            report.latencies.map { (label: $0.operation, values: [Double($0.p50Microseconds) / 1000, Double($0.p99Microseconds) / 1000]) },
            series: ["p50", "p99"], unit: "ms", valueLabel: { "\(SVGChart.number($0)) ms" },
            label: "Latency per operation")
        let rows: [[HTML]] = report.latencies.map { latency in
            ["\(latency.operation)", "\(latency.count)", "\(Self.latency(latency.p50Microseconds))", "\(Self.latency(latency.p99Microseconds))"]
        }
        return """
            <p class="muted">Estimated from latency buckets; <span class="legend p50">p50</span> <span class="legend p99">p99</span></p>
            \(chart)
            \(ConsoleLayout.table(headers: ["Operation", "Requests", "p50", "p99"], rows: rows, id: "latency"))
            """
    }

    /// `420 µs`, `3.8 ms`, `1.25 s`.
    static func latency(_ microseconds: Int64) -> String {
        if microseconds < 1000 { return "\(microseconds) µs" }
        if microseconds < 1_000_000 { return "\(SVGChart.number(Double(microseconds) / 1000)) ms" }
        return "\(SVGChart.number(Double(microseconds) / 1_000_000)) s"
    }
}

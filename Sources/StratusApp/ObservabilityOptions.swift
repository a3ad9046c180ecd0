import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import Prometheus
import StratusServer

/// `stratus serve`'s access log and metrics: `--access-log`, `--metrics-port`, `--metrics-host`,
/// `--metrics-containers`, and the metrics token, read from the environment only
/// (`STRATUS_METRICS_TOKEN`) so it never shows in a process list.
struct ObservabilityOptions: ParsableArguments {
    @Option(help: ArgumentHelp("'on' logs one line per request at info level, 'off' none (env STRATUS_ACCESS_LOG; default on).", valueName: "on|off"))
    var accessLog: String?
    @Option(
        help: ArgumentHelp(
            "Serve GET /metrics (Prometheus) on this port too, without a token; 0 picks a free one (env STRATUS_METRICS_PORT). With STRATUS_METRICS_TOKEN set, the main port serves it to 'Authorization: Bearer <token>'.",
            valueName: "port"))
    var metricsPort: Int?
    @Option(help: ArgumentHelp("Interface of the metrics port (env STRATUS_METRICS_HOST; default 127.0.0.1).", valueName: "host"))
    var metricsHost: String?
    @Option(help: ArgumentHelp("Comma-separated container ids that get their own metrics label; others count as 'other' (env STRATUS_METRICS_CONTAINERS).", valueName: "ids"))
    var metricsContainers: String?

    /// Adds the access log and the metrics to `configuration`; returns the metrics (nil when
    /// neither a token nor a metrics port asks for them) and the metrics port.
    func apply(to configuration: inout ServerConfiguration, logger: Logger) throws -> (metrics: ServerMetrics?, port: Int?) {
        let environment = ProcessInfo.processInfo.environment
        let accessLogSetting = accessLog ?? environment["STRATUS_ACCESS_LOG"] ?? "on"
        guard accessLogSetting == "on" || accessLogSetting == "off" else {
            Console.error("error: --access-log is '\(accessLogSetting)'; use on or off")
            throw ExitCode.failure
        }
        if accessLogSetting == "on" { configuration.requestObservers.append(AccessLog(logger: logger)) }
        let token = environment["STRATUS_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let port =
            try metricsPort
            ?? ServeCommand.wholeNumber(
                "STRATUS_METRICS_PORT", in: environment, atLeast: 0,
                mustBe: "a port number; use 0…65535")
        if let port, !(0...65535).contains(port) {
            Console.error("error: --metrics-port \(port) is out of range; use 0…65535")
            throw ExitCode.failure
        }
        if let token, token.count < 16 {
            Console.error("error: STRATUS_METRICS_TOKEN is shorter than 16 characters; use a long random value (e.g. `openssl rand -hex 24`)")
            throw ExitCode.failure
        }
        guard token != nil || port != nil else { return (nil, nil) }
        let containers = (metricsContainers ?? environment["STRATUS_METRICS_CONTAINERS"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let metrics = ServerMetrics(containerAllowList: Set(containers))
        // Libraries that report through swift-metrics land in the same registry.
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        configuration.metrics = metrics
        configuration.metricsToken = token
        return (metrics, port)
    }

    var host: String { metricsHost ?? ProcessInfo.processInfo.environment["STRATUS_METRICS_HOST"] ?? "127.0.0.1" }
}

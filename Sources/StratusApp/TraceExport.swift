import Logging
import OTel
import ServiceLifecycle
import StratusEngine
import Tracing

/// `stratus serve`'s traces: exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, with swift-otel reading the other `OTEL_*`
/// variables (protocol, headers, sampler, batch delays, `OTEL_SERVICE_NAME`, `OTEL_SDK_DISABLED`).
/// Without an endpoint no tracer is bootstrapped and `TraceSpans` stays off.
///
/// Only traces: the metrics stay on swift-prometheus and the logs on the server's own handler.
enum TraceExport {
    struct UnsupportedProtocol: Error, CustomStringConvertible {
        let variable: String
        let value: String
        var description: String { "\(variable)=\(value) is not supported; use http/protobuf (the default) or http/json" }
    }

    /// Bootstraps the tracer and turns spans on; returns the exporter's service (it batches spans
    /// and sends what is left when the service group shuts down), or nil when tracing is off.
    static func bootstrap(environment: [String: String], logger: Logger) throws -> (any Service)? {
        let endpoints = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
        guard endpoints.contains(where: { !(environment[$0] ?? "").isEmpty }) else { return nil }
        if (environment["OTEL_SDK_DISABLED"] ?? "").lowercased() == "true" { return nil }
        // swift-otel stops the process on a protocol whose exporter is not built (gRPC here).
        for variable in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            guard let value = environment[variable], !value.isEmpty else { continue }
            guard value == "http/protobuf" || value == "http/json" else { throw UnsupportedProtocol(variable: variable, value: value) }
            break
        }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "stratus"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogger = .custom(logger)
        // Environment variables override these, OTEL_SERVICE_NAME included.
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        TraceSpans.enable()
        logger.info("exporting traces over OTLP", metadata: ["service": .string(environment["OTEL_SERVICE_NAME"] ?? "stratus")])
        return backend.service
    }
}

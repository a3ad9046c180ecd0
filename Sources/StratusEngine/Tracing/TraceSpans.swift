import Synchronization
import Tracing

/// Whether this process records spans, and the one way the server's layers open a child span.
///
/// Off until `enable()` is called (by `stratus serve`, once it has bootstrapped a tracer for
/// `OTEL_EXPORTER_OTLP_ENDPOINT`). While off, no span, name or attribute is ever built: each
/// would-be span costs one relaxed atomic load, so a server without tracing pays nothing else.
public enum TraceSpans {
    private static let enabled = Atomic<Bool>(false)

    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Turns spans on for the rest of the process. Call once, after `InstrumentationSystem` is
    /// bootstrapped with a real tracer.
    public static func enable() {
        enabled.store(true, ordering: .relaxed)
    }

    /// Runs `body` in a child span of the current task's span when tracing is on and the task is
    /// inside a span (a request's); otherwise just runs it, so background work (push delivery,
    /// compaction, collectors) never starts traces of its own. The span records an error `body`
    /// throws and ends when `body` returns.
    public static func child<T>(
        _ name: @autoclosure () -> String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled, !childSpansOff, let parent = ServiceContext.current else { return try await body() }
        return try await withSpan(name(), context: parent, isolation: isolation) { _ in try await body() }
    }

    /// Runs `body` without child spans: for a request whose span the sampler left out, whose
    /// children would never be exported either but would still cost a span each to start and end.
    public static func withoutChildSpans<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await $childSpansOff.withValue(true, operation: body, isolation: isolation)
    }

    @TaskLocal private static var childSpansOff = false
}

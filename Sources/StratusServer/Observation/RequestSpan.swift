import HTTPTypes
import Hummingbird
import StratusEngine
import Tracing

/// The server span of one request, built only while `TraceSpans.isEnabled`.
///
/// Its parent is the caller's span when the request carries a W3C `traceparent`; the children
/// (authentication, the engine operation, storage transactions) open inside it through the task's
/// service context. It is named after the request's bounded endpoint (`records/query`, `/signin`)
/// once that is known, and carries what a `RequestSummary` carries minus the caller: no token,
/// user id or record value. The response gets a `traceresponse` header naming the span.
enum RequestSpan {
    static let traceResponseHeader = HTTPField.Name("traceresponse")!

    static func trace(_ request: Request, respond: () async throws -> Response) async throws -> Response {
        var parent = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HeaderExtractor())
        // The handlers note the path and errors in the record observers read, if one is bound.
        let record = RequestRecord.current ?? RequestRecord()
        return try await withSpan("\(request.method.rawValue) request", context: parent, ofKind: .server) { span in
            do {
                var response = try await RequestRecord.$current.withValue(record) {
                    span.isRecording ? try await respond() : try await TraceSpans.withoutChildSpans { try await respond() }
                }
                describe(span, request: request, facts: record.snapshot, status: Int(response.status.code))
                InstrumentationSystem.instrument.inject(span.context, into: &response.headers, using: TraceResponseInjector())
                return response
            } catch {
                let status = (error as? any HTTPResponseError)?.status.code ?? 500
                describe(span, request: request, facts: record.snapshot, status: Int(status))
                throw error
            }
        }
    }

    private static func describe(_ span: any Span, request: Request, facts: RequestRecord.Facts, status: Int) {
        // A request the sampler left out is never exported: nothing to name or describe.
        guard span.isRecording else { return }
        let route = facts.endpoint == nil ? RouteKind(path: request.uri.path) : nil
        let endpoint = facts.endpoint ?? route?.endpoint ?? "other"
        span.operationName = endpoint
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["http.response.status_code"] = status
            attributes["stratus.endpoint"] = endpoint
            attributes["stratus.operation"] = (facts.operation ?? route?.operation ?? .other).rawValue
            attributes["stratus.container"] = facts.container
            attributes["stratus.database"] = facts.database?.rawValue
            attributes["stratus.environment"] = facts.environment?.rawValue
            attributes["stratus.server_error_code"] = facts.serverErrorCode
            attributes["stratus.request_uuid"] = facts.uuid
        }
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`) from a request.
private struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}

/// Writes the span's `traceparent` into a response as `traceresponse` (same format), and nothing
/// else: the caller learns which span answered it.
private struct TraceResponseInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        if key == "traceparent" { carrier[RequestSpan.traceResponseHeader] = value }
    }
}

import Hummingbird
import Logging
import NIOCore
import StratusEngine
import Synchronization

/// An OpenTelemetry collector's trace endpoint for tests: `POST /v1/traces` on 127.0.0.1 takes
/// OTLP/HTTP protobuf (`ExportTraceServiceRequest`, swift-otel's default encoding) and keeps
/// every span it decodes, with the `service.name` of its resource.
final class OTLPReceiver: Sendable {
    struct ReceivedSpan: Sendable, CustomStringConvertible {
        var service: String?
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var name: String
        var attributes: [String: String]

        var description: String { "\(name) span \(spanID) parent \(parentSpanID.isEmpty ? "-" : parentSpanID)" }
    }

    /// Shared with the route that fills it.
    final class Spans: Sendable {
        let list = Mutex<[ReceivedSpan]>([])
    }

    let origin: String
    private let spans: Spans
    private let task: Task<Void, any Error>

    var received: [ReceivedSpan] { spans.list.withLock { $0 } }

    static func start() async throws -> OTLPReceiver {
        let spans = Spans()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            guard request.headers[.contentType] == "application/x-protobuf",
                  let decoded = try? OTLPTraceDecoder.spans(in: Array(body.readableBytesView)) else {
                return Response(status: .badRequest)
            }
            spans.list.withLock { $0 += decoded }
            // An empty ExportTraceServiceResponse: everything accepted.
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"], body: .init(byteBuffer: ByteBuffer()))
        }
        var logger = Logger(label: "otlp-receiver")
        logger.logLevel = .critical
        let (bound, task) = try await runOnLoopback { onServerRunning in
            Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                        onServerRunning: onServerRunning, logger: logger)
        }
        return OTLPReceiver(origin: "http://127.0.0.1:\(bound)", spans: spans, task: task)
    }

    private init(origin: String, spans: Spans, task: Task<Void, any Error>) {
        self.origin = origin
        self.spans = spans
        self.task = task
    }

    func stop() { task.cancel() }
}

/// Reads the few fields of OTLP's trace protobuf the tests look at, straight off the wire format
/// (field numbers from opentelemetry-proto's trace/v1 and common/v1 messages); unknown fields are skipped.
enum OTLPTraceDecoder {
    struct Malformed: Error {}

    static func spans(in request: [UInt8]) throws -> [OTLPReceiver.ReceivedSpan] {
        var spans: [OTLPReceiver.ReceivedSpan] = []
        // ExportTraceServiceRequest.resource_spans = 1
        for resourceSpans in try fields(request) where resourceSpans.number == 1 {
            let parts = try fields(resourceSpans.bytes)
            // ResourceSpans.resource = 1 (Resource.attributes = 1), scope_spans = 2
            let resource = try parts.filter { $0.number == 1 }.flatMap { try attributes(in: $0.bytes, field: 1) }
            let service = resource.first { $0.key == "service.name" }?.value
            for scopeSpans in parts where scopeSpans.number == 2 {
                // ScopeSpans.spans = 2
                for span in try fields(scopeSpans.bytes) where span.number == 2 {
                    spans.append(try decodeSpan(span.bytes, service: service))
                }
            }
        }
        return spans
    }

    /// Span: trace_id = 1, span_id = 2, parent_span_id = 4, name = 5, attributes = 9.
    private static func decodeSpan(_ bytes: [UInt8], service: String?) throws -> OTLPReceiver.ReceivedSpan {
        var span = OTLPReceiver.ReceivedSpan(service: service, traceID: "", spanID: "", parentSpanID: "", name: "", attributes: [:])
        for field in try fields(bytes) {
            switch field.number {
            case 1: span.traceID = hexString(field.bytes)
            case 2: span.spanID = hexString(field.bytes)
            case 4: span.parentSpanID = hexString(field.bytes)
            case 5: span.name = String(decoding: field.bytes, as: UTF8.self)
            default: break
            }
        }
        for (key, value) in try attributes(in: bytes, field: 9) { span.attributes[key] = value }
        return span
    }

    /// KeyValue (key = 1, value = 2) entries in `field` of a message; AnyValue's string_value (1)
    /// as is, int_value (3) in decimal, bool_value (2) as true/false.
    private static func attributes(in message: [UInt8], field number: Int) throws -> [(key: String, value: String)] {
        try fields(message).filter { $0.number == number }.map { keyValue in
            let parts = try fields(keyValue.bytes)
            let key = parts.first { $0.number == 1 }.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
            var value = ""
            if let any = parts.first(where: { $0.number == 2 }) {
                for part in try fields(any.bytes) {
                    switch part.number {
                    case 1: value = String(decoding: part.bytes, as: UTF8.self)
                    case 2: value = part.varint != 0 ? "true" : "false"
                    case 3: value = String(Int64(bitPattern: part.varint))
                    default: break
                    }
                }
            }
            return (key, value)
        }
    }

    struct Field {
        var number: Int
        var varint: UInt64 = 0
        var bytes: [UInt8] = []
    }

    /// The top-level fields of one message: varints, length-delimited bytes; fixed-width skipped.
    static func fields(_ message: [UInt8]) throws -> [Field] {
        var result: [Field] = []
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard index < message.count, shift < 64 else { throw Malformed() }
                let byte = message[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while index < message.count {
            let tag = try varint()
            var field = Field(number: Int(tag >> 3))
            switch tag & 7 {
            case 0: field.varint = try varint()
            case 1: index += 8
            case 2:
                let length = Int(try varint())
                guard length >= 0, index + length <= message.count else { throw Malformed() }
                field.bytes = Array(message[index..<index + length])
                index += length
            case 5: index += 4
            default: throw Malformed()
            }
            guard index <= message.count else { throw Malformed() }
            result.append(field)
        }
        return result
    }
}

import NIOCore
import NIOHTTP1
import NIOPosix
import StratusEngine
import Synchronization

/// An OpenTelemetry collector's trace endpoint for tests: `POST /v1/traces` on 127.0.0.1 takes
/// OTLP/HTTP protobuf (`ExportTraceServiceRequest`, swift-otel's default encoding) and keeps
/// every span it decodes, with the `service.name` of its resource.
///
/// Plain SwiftNIO: requests are answered on the event loop, never waiting for a thread of the
/// test process's concurrency pool, which other live tests may keep busy while a server under
/// test sends its last spans.
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

    /// Shared with the channel handlers that fill it.
    final class Spans: Sendable {
        let list = Mutex<[ReceivedSpan]>([])
    }

    let origin: String
    private let spans: Spans
    private let channel: any Channel

    var received: [ReceivedSpan] { spans.list.withLock { $0 } }

    static func start() async throws -> OTLPReceiver {
        let spans = Spans()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TraceExportHandler(spans: spans))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return OTLPReceiver(origin: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)", spans: spans, channel: channel)
    }

    private init(origin: String, spans: Spans, channel: any Channel) {
        self.origin = origin
        self.spans = spans
        self.channel = channel
    }

    func stop() { channel.close(promise: nil) }
}

/// One connection's requests: a decodable trace export is kept and answered 200 with an empty
/// `ExportTraceServiceResponse`; anything else is answered 400.
private final class TraceExportHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let spans: OTLPReceiver.Spans
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(spans: OTLPReceiver.Spans) {
        self.spans = spans
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer):
            body += buffer.readableBytesView
        case .end:
            var status = HTTPResponseStatus.badRequest
            if let head, head.method == .POST, head.uri == "/v1/traces",
                head.headers["content-type"].first == "application/x-protobuf",
                let decoded = try? OTLPTraceDecoder.spans(in: body)
            {
                spans.list.withLock { $0 += decoded }
                status = .ok
            }
            var response = HTTPResponseHead(version: .http1_1, status: status)
            response.headers.add(name: "Content-Type", value: "application/x-protobuf")
            response.headers.add(name: "Content-Length", value: "0")
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
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

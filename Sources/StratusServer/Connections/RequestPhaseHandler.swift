import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits after the HTTP codec: tells `ConnectionWatch` where each request stands, and keeps
/// clients that pipeline requests from starving everyone else.
///
/// Request handlers run on the event loops, and an event loop polls its sockets only once no
/// task is ready. A client that pipelines thousands of requests would keep a task ready for as
/// long as its requests last: each answer lets the handler take the next request, already
/// decoded, so the loop never gets back to accepting or reading anyone else. Here a request that
/// arrives while the previous one is being answered is held, reading from the socket stops (TCP
/// pushes back on the client), and the held request is handed on after the answer, marked
/// `pipelinedMarker`; `StratusResponder` runs marked requests on the shared thread pool, so the
/// event loop stays free to serve sockets.
///
/// A response written before its request's body was read whole (an early error, a body over
/// the limit) closes the connection instead of reading the rest of the body.
final class RequestPhaseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Held {
        case part(HTTPRequestPart)
        case error(any Error)
        case event(Any)
    }

    private let watch: ConnectionWatch
    private var held = CircularBuffer<Held>()
    /// A request was handed on and its response's end is not written yet.
    private var awaitingResponse = false
    /// The request being answered has been read to its end.
    private var requestEnded = true
    private var readWanted = false
    private var releaseScheduled = false
    /// The request was answered before its body arrived; what still comes is dropped.
    private var discardingInput = false

    /// Set on requests that arrived while an earlier one on their connection was being answered.
    static let pipelinedMarker = HTTPField.Name("X-Stratus-Pipelined")!

    init(watch: ConnectionWatch) { self.watch = watch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if discardingInput { return }
        if !held.isEmpty || (awaitingResponse && requestEnded && part.isHead) {
            held.append(.part(part))
            return
        }
        deliver(part, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if held.isEmpty { context.fireErrorCaught(error) } else { held.append(.error(error)) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client's end of input must not overtake requests still held.
        if !held.isEmpty, event is ChannelEvent { held.append(.event(event)) } else { context.fireUserInboundEventTriggered(event) }
    }

    func read(context: ChannelHandlerContext) {
        if held.isEmpty { context.read() } else { readWanted = true }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            watch.responseHeadWritten()
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            awaitingResponse = false
            guard requestEnded else {
                // Answered before the body was read: reading the rest would only cost time. The
                // output closes first so the client reads the answer (closing outright while
                // its body still arrives would reset the connection and lose it); the rest of
                // the body is dropped and the connection closes a moment later.
                discardingInput = true
                let channel = context.channel
                let written = promise ?? context.eventLoop.makePromise()
                written.futureResult.whenComplete { _ in
                    channel.close(mode: .output, promise: nil)
                    channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                }
                context.writeAndFlush(data, promise: written)
                return
            }
            context.write(data, promise: promise)
            watch.responseEnded()
            if !held.isEmpty { scheduleRelease(context) }
        }
    }

    private func deliver(_ part: HTTPRequestPart, context: ChannelHandlerContext, held: Bool = false) {
        var part = part
        switch part {
        case .head(var head):
            // The marker is the server's own: a client's copy is dropped, so only requests this
            // handler held are moved off the event loop.
            if held || head.headerFields[RequestPhaseHandler.pipelinedMarker] != nil {
                head.headerFields[RequestPhaseHandler.pipelinedMarker] = held ? "1" : nil
                part = .head(head)
            }
            awaitingResponse = true
            requestEnded = false
            watch.requestHeadReceived()
        case .body(let bytes):
            watch.bodyReceived(bytes: bytes.readableBytes)
        case .end:
            requestEnded = true
            watch.requestEnded()
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    private func scheduleRelease(_ context: ChannelHandlerContext) {
        guard !releaseScheduled else { return }
        releaseScheduled = true
        context.eventLoop.assumeIsolated().execute { [self] in
            releaseScheduled = false
            release(context)
        }
    }

    /// Hands on held input up to the end of the next request, then resumes reading once
    /// nothing is held.
    private func release(_ context: ChannelHandlerContext) {
        guard !awaitingResponse else { return }
        var delivered = false
        while let next = held.first {
            if case .part(let part) = next, part.isHead, awaitingResponse { break }
            held.removeFirst()
            switch next {
            case .part(let part):
                deliver(part, context: context, held: true)
                delivered = true
            case .error(let error):
                context.fireErrorCaught(error)
            case .event(let event):
                context.fireUserInboundEventTriggered(event)
            }
        }
        if delivered {
            context.fireChannelReadComplete()
            watch.ensureTimer()
        }
        if held.isEmpty, readWanted {
            readWanted = false
            context.read()
        }
    }
}

private extension HTTPRequestPart {
    var isHead: Bool {
        if case .head = self { return true }
        return false
    }
}

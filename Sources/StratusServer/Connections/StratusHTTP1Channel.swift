import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with Stratus's connection handling added: `ConnectionWatch`
/// in front of the HTTP codec (cap, timeouts) and `RequestPhaseHandler` after it (request
/// phases, fair pipelining).
struct StratusHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let registry: ConnectionRegistry
    private let http1: HTTP1Channel

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.responder = responder
        self.limits = limits
        self.registry = registry
        http1 = HTTP1Channel(responder: responder, configuration: .init())
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = limits, registry = registry
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let watch = ConnectionWatch(limits: limits, registry: registry)
            try pipeline.addHandler(watch, position: .first)
            let connectionState = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(RequestPhaseHandler(watch: watch), position: .before(connectionState))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 under `limits`, admitted through `registry`.
    static func stratusHTTP1(limits: ConnectionLimits, registry: ConnectionRegistry) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in StratusHTTP1Channel(responder: responder, limits: limits, registry: registry) }
    }
}

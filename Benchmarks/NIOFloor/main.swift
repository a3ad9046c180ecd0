// The floor of a SwiftNIO HTTP/1.1 server on this machine: the smallest server NIO allows (one
// channel handler answering every request with a fixed 11-byte JSON body, no router, no
// concurrency hops). Benchmarks/README.md compares its one-client rate, idle and busy machine,
// with Stratus's and PocketBase's health endpoints. Usage: nio-floor [port] (default 18181).
import NIOCore
import NIOHTTP1
import NIOPosix

final class FixedResponder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var body = context.channel.allocator.buffer(capacity: 16)
        body.writeString(#"{"ok":true}"#)
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 18181
let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(FixedResponder())
        }
    }
    .bind(host: "127.0.0.1", port: port).get()
print("listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)")
try await channel.closeFuture.get()

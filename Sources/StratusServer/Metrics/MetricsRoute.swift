import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import StratusEngine

/// `GET /metrics`: on the main port only with `Authorization: Bearer <metrics token>`, so
/// request counts are not public; on the separate metrics port (loopback by default) without.
enum MetricsRoute {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func add(to router: Router<BasicRequestContext>, metrics: ServerMetrics, token: String?) {
        router.get("/metrics") { request, _ in
            if let token {
                guard let presented = bearerToken(request), digestsMatch(presented, token) else {
                    return CloudKitResponse.error(
                        CloudKitError(
                            .authenticationFailed,
                            "GET /metrics needs the header 'Authorization: Bearer <metrics token>' (the server's STRATUS_METRICS_TOKEN)"),
                        uuid: CloudKitResponse.newRequestUUID())
                }
            }
            await metrics.operations.sampleQueues()
            return Response(
                status: .ok, headers: [.contentType: contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }

    static func bearerToken(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// Compares digests, so the time taken says nothing about how much of the token matched.
    static func digestsMatch(_ presented: String, _ expected: String) -> Bool {
        SHA256.hash(data: Data(presented.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }
}

/// A second listener that serves only `GET /metrics`, without a token: bind it to loopback (the
/// default) or to an address only the monitoring network reaches.
public func makeMetricsApplication(
    metrics: ServerMetrics, host: String, port: Int, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router(context: BasicRequestContext.self)
    MetricsRoute.add(to: router, metrics: metrics, token: nil)
    return Application(
        router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Stratus"),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        logger: logger)
}

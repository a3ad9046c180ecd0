import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StratusEngine
import StratusModel
import Synchronization

/// A webhook's receiver on loopback, as a team's own service would be: it checks each delivery's
/// signature (HMAC-SHA256 of `t.body` with the webhook's secret, the timestamp within 5 minutes)
/// and keeps what it accepted. `failFirst` answers 500 to that many deliveries first.
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        let body: JSONValue
        let eventHeader: String
    }

    let url: String
    let secret = Mutex<String>("")
    let accepted = Mutex<[Delivery]>([])
    let refused = Mutex<[String]>([])
    let failuresLeft: Mutex<Int>
    private let task: Task<Void, any Error>

    static func start(failFirst: Int = 0) async throws -> WebhookReceiver {
        let box = Box()
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let body = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            return box.receiver!.receive(
                body, signature: request.headers[HTTPField.Name("X-Stratus-Signature")!] ?? "",
                event: request.headers[HTTPField.Name("X-Stratus-Event")!] ?? "")
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let (bound, task) = try await runOnLoopback { onServerRunning in
            Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning, logger: logger)
        }
        let receiver = WebhookReceiver(url: "http://127.0.0.1:\(bound)/hook", failFirst: failFirst, task: task)
        box.receiver = receiver
        return receiver
    }

    private init(url: String, failFirst: Int, task: Task<Void, any Error>) {
        self.url = url
        self.failuresLeft = Mutex(failFirst)
        self.task = task
    }

    func stop() { task.cancel() }

    var deliveries: [Delivery] { accepted.withLock { $0 } }

    private func receive(_ body: [UInt8], signature: String, event: String) -> Response {
        var parts: [String: String] = [:]
        for part in signature.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parts[pair[0]] = pair[1] }
        }
        let key = SymmetricKey(data: Array(secret.withLock { $0 }.utf8))
        guard let timestamp = parts["t"].flatMap(Int64.init), let given = parts["v1"],
            abs(Int64(Date().timeIntervalSince1970) - timestamp) <= 300,
            hexString(HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + body, using: key)) == given,
            let json = try? JSONValue.parse(body)
        else {
            refused.withLock { $0.append(signature) }
            return Response(status: .unauthorized)
        }
        let fail = failuresLeft.withLock { left in
            defer { left = max(left - 1, 0) }
            return left > 0
        }
        if fail { return Response(status: .internalServerError) }
        accepted.withLock { $0.append(Delivery(body: json, eventHeader: event)) }
        return Response(status: .noContent)
    }

    private final class Box: @unchecked Sendable {
        var receiver: WebhookReceiver?
    }
}

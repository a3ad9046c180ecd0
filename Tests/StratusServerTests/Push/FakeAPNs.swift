import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import StratusEngine
import StratusModel
import Synchronization

/// A stand-in for Apple's push service: HTTP/2 over TLS on 127.0.0.1 with a test certificate.
/// Like APNs it checks the provider token (ES256 signature with the key's public half, `kid`,
/// `iss`, an `iat` under an hour old), the path, headers and payload, and answers with APNs's
/// statuses and reasons. Tests script answers per device token, make tokens hang, and read what
/// was accepted.
final class FakeAPNs: Sendable {
    struct Accepted: Sendable {
        let deviceToken: String
        let payload: JSONValue
        let headers: [String: String]
    }

    struct State {
        var accepted: [Accepted] = []
        /// Answers to give a token, in order, before accepting it.
        var script: [String: [(status: Int, reason: String)]] = [:]
        /// Tokens whose requests are never answered.
        var hanging: Set<String> = []
        /// Every provider token presented, in order.
        var providerTokens: [String] = []
        var refusals: [String] = []
        /// While set, no request is answered.
        var holding = false
        var http1Requests = 0
    }

    let keyID: String
    let teamID: String
    let topic: String
    let publicKey: P256.Signing.PublicKey
    let state = Mutex(State())
    private let task: Task<Void, any Error>
    let endpoint: String

    /// Starts the server; `key` is the provider's signing key (the test keeps the private half).
    static func start(
        certificate: TestCertificate, key: P256.Signing.PrivateKey, keyID: String, teamID: String,
        topic: String
    ) async throws -> FakeAPNs {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificate.keyPath, format: .pem)))
        let fake = Box()
        let router = Router(context: FakeAPNsContext.self)
        router.post("/3/device/:token") { request, context in
            try await fake.value!.answer(request, context: context)
        }
        var logger = Logger(label: "fake-apns")
        logger.logLevel = .critical
        let (bound, task) = try await runOnLoopback { onServerRunning in
            Application(
                router: router, server: try .http2Upgrade(tlsConfiguration: tls, configuration: .init()),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning, logger: logger)
        }
        let server = FakeAPNs(
            keyID: keyID, teamID: teamID, topic: topic, publicKey: key.publicKey, task: task,
            endpoint: "https://127.0.0.1:\(bound)")
        fake.value = server
        return server
    }

    private init(keyID: String, teamID: String, topic: String, publicKey: P256.Signing.PublicKey, task: Task<Void, any Error>, endpoint: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.publicKey = publicKey
        self.task = task
        self.endpoint = endpoint
    }

    func stop() { task.cancel() }

    var accepted: [Accepted] { state.withLock { $0.accepted } }

    /// Checks the request as APNs does, then answers: scripted, hanging, or accepted.
    func answer(_ request: Request, context: FakeAPNsContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        let body = try await request.body.collect(upTo: 1 << 20)
        if !context.isHTTP2 { state.withLock { $0.http1Requests += 1 } }
        if let refusal = check(request, token: token, body: body) {
            state.withLock { $0.refusals.append(refusal.reason) }
            return reply(refusal.status, refusal.reason)
        }
        let jwt = String(request.headers[.authorization]?.dropFirst("bearer ".count) ?? "")
        // Held or hanging requests wait (the client's timeout ends them); held ones are answered
        // once released.
        // A held request is never accepted: its sender may be gone by the time it is let go.
        let giveUp = ContinuousClock.now + .seconds(60)
        var held = false
        while state.withLock({ $0.holding || $0.hanging.contains(token) }), ContinuousClock.now < giveUp {
            held = true
            try await Task.sleep(for: .milliseconds(20))
        }
        if held { return reply(503, "ServiceUnavailable") }
        enum Next { case scripted(Int, String), accept }
        let next: Next = state.withLock { state in
            state.providerTokens.append(jwt)
            if var answers = state.script[token], !answers.isEmpty {
                let answer = answers.removeFirst()
                state.script[token] = answers
                return .scripted(answer.status, answer.reason)
            }
            return .accept
        }
        switch next {
        case .scripted(let status, let reason): return reply(status, reason)
        case .accept:
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let payload = (try? JSONValue.parse(Array(body.readableBytesView))) ?? .null
            state.withLock { $0.accepted.append(Accepted(deviceToken: token, payload: payload, headers: headers)) }
            return Response(status: .ok, headers: [.init("apns-id")!: UUID().uuidString])
        }
    }

    private func check(_ request: Request, token: String, body: ByteBuffer) -> (status: Int, reason: String)? {
        guard token.count >= 64, token.allSatisfy(\.isHexDigit) else { return (400, "BadDeviceToken") }
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("bearer ") else {
            return (403, "MissingProviderToken")
        }
        guard verifyProviderToken(String(authorization.dropFirst("bearer ".count))) else { return (403, "InvalidProviderToken") }
        guard let topic = request.headers[.init("apns-topic")!] else { return (400, "MissingTopic") }
        guard topic == self.topic else { return (400, "DeviceTokenNotForTopic") }
        let pushType = request.headers[.init("apns-push-type")!]
        guard pushType == "alert" || pushType == "background" else { return (400, "InvalidPushType") }
        let priority = request.headers[.init("apns-priority")!]
        guard priority == "10" || priority == "5", pushType != "background" || priority == "5" else { return (400, "BadPriority") }
        if let collapse = request.headers[.init("apns-collapse-id")!], collapse.utf8.count > 64 { return (400, "BadCollapseId") }
        guard request.headers[.init("apns-expiration")!].flatMap(Int.init) != nil else { return (400, "BadExpirationDate") }
        guard body.readableBytes <= 4096 else { return (413, "PayloadTooLarge") }
        guard body.readableBytes > 0, (try? JSONValue.parse(Array(body.readableBytesView)))?.objectValue != nil else {
            return (400, "PayloadEmpty")
        }
        return nil
    }

    /// ES256 over `header.claims` with the key's public half; `kid`, `iss` and a fresh `iat`.
    func verifyProviderToken(_ jwt: String) -> Bool {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2]),
            let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(claimsBytes),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return false }
        guard header["alg"]?.stringValue == "ES256", header["kid"]?.stringValue == keyID, claims["iss"]?.stringValue == teamID,
            let issued = claims["iat"]?.int64Value
        else { return false }
        let now = Int64(Date().timeIntervalSince1970)
        guard issued <= now + 60, now - issued < 3600 else { return false }
        return publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
    }

    private func reply(_ status: Int, _ reason: String) -> Response {
        var members: [String: JSONValue] = ["reason": .string(reason)]
        if status == 410 { members["timestamp"] = .int(Int64(Date().timeIntervalSince1970 * 1000)) }
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: JSONValue.object(members).serializedString)))
    }

    /// Lets the router reach the server made after it.
    final class Box: @unchecked Sendable {
        var value: FakeAPNs?
    }
}

/// The request context of the fake: whether the request came on an HTTP/2 stream (a stream is a
/// child of its connection's channel, which is a child of the listening channel).
struct FakeAPNsContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let isHTTP2: Bool

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        isHTTP2 = source.channel.parent?.parent != nil
    }
}

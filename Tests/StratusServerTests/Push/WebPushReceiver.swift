import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import StratusEngine
import StratusModel
import Synchronization

/// A browser's side of Web Push for tests: it holds the subscription's private key and auth
/// secret, and as the push service at 127.0.0.1 it checks the VAPID authorization (RFC 8292),
/// decrypts each message (RFC 8291, derived here step by step from the RFC, apart from the
/// sender's code) and keeps the plaintext. Paths under `/gone/` answer 410.
final class WebPushReceiver: Sendable {
    struct Received: Sendable {
        let plaintext: JSONValue
        let headers: [String: String]
        let vapidKey: String
        let audience: String
    }

    let browserKey = P256.KeyAgreement.PrivateKey()
    let auth: [UInt8] = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
    let received = Mutex<[Received]>([])
    let failures = Mutex<[String]>([])
    let origin: String
    private let task: Task<Void, any Error>

    var p256dh: String { Base64URL.encode(browserKey.publicKey.x963Representation) }
    var authText: String { Base64URL.encode(auth) }

    static func start() async throws -> WebPushReceiver {
        let box = Box()
        let router = Router()
        router.post("/push/:id") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            do {
                try box.value!.accept(Array(body.readableBytesView), headers: headers)
                return Response(status: .created)
            } catch {
                box.value!.failures.withLock { $0.append("\(error)") }
                return Response(status: .badRequest)
            }
        }
        router.post("/gone/:id") { _, _ in Response(status: .gone) }
        var logger = Logger(label: "web-push-receiver")
        logger.logLevel = .critical
        let (bound, task) = try await runOnLoopback { onServerRunning in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: onServerRunning, logger: logger)
        }
        let receiver = WebPushReceiver(origin: "http://127.0.0.1:\(bound)", task: task)
        box.value = receiver
        return receiver
    }

    private init(origin: String, task: Task<Void, any Error>) {
        self.origin = origin
        self.task = task
    }

    func stop() { task.cancel() }

    struct Refused: Error, CustomStringConvertible { let description: String }

    private func accept(_ body: [UInt8], headers: [String: String]) throws {
        guard headers["content-encoding"] == "aes128gcm" else { throw Refused(description: "Content-Encoding is not aes128gcm") }
        guard headers["ttl"].flatMap(Int.init) != nil else { throw Refused(description: "no TTL") }
        let (key, audience) = try verifyVAPID(headers["authorization"] ?? "")
        let plaintext = try decrypt(body)
        let json = try JSONValue.parse(plaintext)
        received.withLock { $0.append(Received(plaintext: json, headers: headers, vapidKey: key, audience: audience)) }
    }

    /// `vapid t=<jwt>, k=<key>`: an ES256 JWT signed by `k`, for this origin, expiring within a day.
    private func verifyVAPID(_ authorization: String) throws -> (key: String, audience: String) {
        guard authorization.hasPrefix("vapid ") else { throw Refused(description: "not a vapid authorization: \(authorization.prefix(20))") }
        var parameters: [String: String] = [:]
        for part in authorization.dropFirst("vapid ".count).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parameters[pair[0]] = pair[1] }
        }
        guard let jwt = parameters["t"], let key = parameters["k"], let keyBytes = Base64URL.decode(key),
            let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes)
        else { throw Refused(description: "no t= or k=") }
        let parts = jwt.split(separator: ".").map(String.init)
        guard parts.count == 3, let claims = Base64URL.decode(parts[1]).flatMap({ try? JSONValue.parse($0) }),
            let signature = Base64URL.decode(parts[2]).flatMap({ try? P256.Signing.ECDSASignature(rawRepresentation: $0) }),
            publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else {
            throw Refused(description: "the VAPID JWT's signature does not verify with k")
        }
        let now = Int64(Date().timeIntervalSince1970)
        guard let expires = claims["exp"]?.int64Value, expires > now, expires <= now + 86_400 else { throw Refused(description: "bad exp") }
        guard claims["sub"]?.stringValue?.hasPrefix("mailto:") == true else { throw Refused(description: "no sub") }
        return (key, claims["aud"]?.stringValue ?? "")
    }

    /// RFC 8291 §3.3–3.4 and RFC 8188 §2, with HMAC-SHA-256 written out as the RFC does.
    private func decrypt(_ body: [UInt8]) throws -> [UInt8] {
        guard body.count > 86, body[20] == 65 else { throw Refused(description: "bad aes128gcm header") }
        let salt = Array(body[0..<16])
        let senderKeyBytes = Array(body[21..<86])
        let sealed = Array(body[86...])
        let senderKey = try P256.KeyAgreement.PublicKey(x963Representation: senderKeyBytes)
        let ecdh = try browserKey.sharedSecretFromKeyAgreement(with: senderKey).withUnsafeBytes { Array($0) }
        func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        }
        let keyInfo = Array("WebPush: info".utf8) + [0] + Array(browserKey.publicKey.x963Representation) + senderKeyBytes
        let ikm = hmac(hmac(auth, ecdh), keyInfo + [1])
        let prk = hmac(salt, ikm)
        let cek = Array(hmac(prk, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16))
        let nonce = Array(hmac(prk, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12))
        let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        var plaintext = Array(try AES.GCM.open(box, using: SymmetricKey(data: cek)))
        // The last record ends with 0x02 then optional zero padding.
        while plaintext.last == 0 { plaintext.removeLast() }
        guard plaintext.last == 2 else { throw Refused(description: "no last-record delimiter") }
        plaintext.removeLast()
        return plaintext
    }

    final class Box: @unchecked Sendable {
        var value: WebPushReceiver?
    }
}

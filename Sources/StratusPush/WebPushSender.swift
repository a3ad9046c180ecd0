import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusEngine
import StratusModel

/// Sends one push to a browser's push service (RFC 8030): the notification encrypted for the
/// browser (RFC 8291), authorized with the container's VAPID key (RFC 8292).
struct WebPushSender: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount

    func send(_ push: PushDeliveryRow, endpoint: String, p256dh: String, auth: String, settings: VAPIDSettings) async -> PushOutcome {
        guard let payload = PushPayload(frame: push.payload, limit: PushPayload.webPushLimit) else {
            return .refused("the notification does not fit in one Web Push record even without its fields and alert")
        }
        guard let receiverKey = Base64URL.decode(p256dh), let secret = Base64URL.decode(auth) else {
            return .tokenGone("the stored push subscription keys are damaged")
        }
        let authorization: String
        let body: [UInt8]
        do {
            authorization = try WebPushSender.vapidAuthorization(endpoint: endpoint, settings: settings)
            body = try WebPushEncryption.encrypt(Array(payload.body.utf8), p256dh: receiverKey, auth: secret)
        } catch let error as CloudKitError {
            return .misconfigured(error.reason)
        } catch {
            return .tokenGone("the push subscription's p256dh is not a P-256 key: \(error)")
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "authorization", value: authorization)
        request.headers.add(name: "content-encoding", value: "aes128gcm")
        request.headers.add(name: "content-type", value: "application/octet-stream")
        request.headers.add(name: "ttl", value: String(max(0, (push.expiresMilliseconds - nowMilliseconds()) / 1000)))
        request.headers.add(name: "urgency", value: payload.priority == 10 ? "high" : "normal")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try await response.body.collect(upTo: 16 * 1024)
            let status = Int(response.status.code)
            let described = "push service answered \(status)"
            switch status {
            case 200..<300: return .delivered
            case 404, 410: return .tokenGone(described)
            case 401, 403: return .misconfigured(described + " (VAPID authorization refused)")
            case 429, 500...: return .retry(described)
            default: return .refused(described)
            }
        } catch {
            return .retry("push service request failed: \(error)")
        }
    }

    /// `vapid t=<JWT>, k=<public key>`: a JWT for the push service's origin, valid 12 hours.
    static func vapidAuthorization(endpoint: String, settings: VAPIDSettings, now: Date = Date()) throws -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else {
            throw CloudKitError.badRequest("the push subscription's endpoint is not a URL")
        }
        let audience = scheme + "://" + host + (url.port.map { ":\($0)" } ?? "")
        let key = try settings.signingKey()
        let jwt = try ES256Token.make(
            header: ["typ": "JWT", "alg": "ES256"],
            claims: [
                "aud": .string(audience), "exp": .int(Int64(now.timeIntervalSince1970) + 12 * 3600),
                "sub": .string(settings.subject),
            ],
            key: key)
        return "vapid t=\(jwt), k=\(Base64URL.encode(key.publicKey.x963Representation))"
    }
}

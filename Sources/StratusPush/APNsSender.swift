import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusEngine
import StratusModel

/// Sends one push through Apple's HTTP/2 provider API with token authentication, and reads
/// APNs's answer into what the queue does next.
struct APNsSender: Sendable {
    let client: HTTPClient
    let providerTokens: ProviderTokens
    let timeout: TimeAmount

    func send(_ push: PushDeliveryRow, deviceToken: String, apnsEnvironment: String, settings: APNsSettings) async -> PushOutcome {
        guard let payload = PushPayload(frame: push.payload, limit: PushPayload.apnsLimit) else {
            return .refused("the notification does not fit in APNs's \(PushPayload.apnsLimit) bytes even without its fields and alert")
        }
        // A token APNs calls expired is made again once, at once; other answers are final here.
        for round in 0..<2 {
            let outcome = await send(payload, push: push, deviceToken: deviceToken, apnsEnvironment: apnsEnvironment, settings: settings)
            guard case .retryWithNewProviderToken(let jwt) = outcome else { return outcome }
            await providerTokens.expire(jwt)
            if round == 1 { return .retry("APNs called a new provider token expired (is this machine's clock right?)") }
        }
        return .retry("unreachable")
    }

    private func send(
        _ payload: PushPayload, push: PushDeliveryRow, deviceToken: String, apnsEnvironment: String,
        settings: APNsSettings
    ) async -> PushOutcome {
        let jwt: String
        do {
            jwt = try await providerTokens.token(for: settings)
        } catch let error as CloudKitError {
            return .misconfigured(error.reason)
        } catch {
            return .misconfigured("the APNs provider token could not be signed: \(error)")
        }
        let endpoint = settings.endpoint ?? APNsSettings.appleEndpoint(apnsEnvironment: apnsEnvironment)
        var request = HTTPClientRequest(url: endpoint + "/3/device/" + deviceToken)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + jwt)
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: payload.pushType)
        request.headers.add(name: "apns-priority", value: String(payload.priority))
        request.headers.add(name: "apns-expiration", value: String(push.expiresMilliseconds / 1000))
        if let collapseID = payload.collapseID { request.headers.add(name: "apns-collapse-id", value: collapseID) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: payload.body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 16 * 1024)
            if response.status == .ok { return .delivered }
            let reason = (try? JSONValue.parse(Array(body.readableBytesView)))?["reason"]?.stringValue ?? ""
            return APNsSender.outcome(status: Int(response.status.code), reason: reason, jwt: jwt)
        } catch {
            return .retry("APNs request failed: \(error)")
        }
    }

    /// APNs's status and `reason` as a queue decision (Apple's "Handling notification responses").
    static func outcome(status: Int, reason: String, jwt: String) -> PushOutcome {
        let described = "APNs \(status) \(reason.isEmpty ? "(no reason)" : reason)"
        switch reason.lowercased() {
        case "baddevicetoken", "unregistered", "expiredtoken", "devicetokennotfortopic":
            return .tokenGone(described)
        case "expiredprovidertoken":
            return .retryWithNewProviderToken(jwt)
        case "invalidprovidertoken", "missingprovidertoken", "badcertificate", "badcertificateenvironment", "forbidden",
            "badtopic", "topicdisallowed", "missingtopic", "badenvironmentkeyintoken", "badenvironmentkeyidintoken",
            "unrelatedkeyidintoken":
            return .misconfigured(described)
        case "toomanyrequests", "toomanyprovidertokenupdates", "idletimeout", "internalservererror", "serviceunavailable", "shutdown":
            return .retry(described)
        default:
            if status == 410 { return .tokenGone(described) }
            if status == 429 || status >= 500 { return .retry(described) }
            if status == 403 { return .misconfigured(described) }
            return .refused(described)
        }
    }
}

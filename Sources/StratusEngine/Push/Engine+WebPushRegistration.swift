import Foundation
import StratusModel

extension Engine {
    /// tokens/register with `webPushSubscription`: a browser's push subscription, in the shape
    /// `PushSubscription.toJSON()` gives it (`endpoint`, `keys.p256dh`, `keys.auth`). The caller's
    /// notifications are then encrypted for the browser and sent to its push service. As with
    /// APNs tokens, a subscription belongs to whoever registered it first.
    func registerWebPushSubscription(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let (endpoint, p256dh, auth) = try readingWire { () throws(WireError) in
            let subscription = try JSONObjectReader(body).object("webPushSubscription")
            let keys = try subscription.object("keys")
            return (try subscription.string("endpoint"), try keys.string("p256dh"), try keys.string("auth"))
        }
        guard let url = URL(string: endpoint), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw CloudKitError.badRequest("webPushSubscription.endpoint: expected the push service's https URL, got '\(endpoint.prefix(80))'")
        }
        guard let key = Base64URL.decode(Engine.unpadded(p256dh)), key.count == 65, key.first == 4 else {
            throw CloudKitError.badRequest("webPushSubscription.keys.p256dh: expected the browser's uncompressed P-256 key in base64url (65 bytes)")
        }
        guard let secret = Base64URL.decode(Engine.unpadded(auth)), secret.count == 16 else {
            throw CloudKitError.badRequest("webPushSubscription.keys.auth: expected the browser's 16-byte authentication secret in base64url")
        }
        let digest = secretDigest("webpush " + endpoint)
        let row = PushTokenRow(
            digest: digest, container: scope.store.container, environment: scope.store.environment,
            userRecordName: scope.caller.effectiveRecordName, apnsEnvironment: "production",
            apnsToken: endpoint, registered: true)
        try await storage.write { writer in
            if let existing = try await writer.pushToken(digest: digest),
                existing.container != row.container || existing.userRecordName != row.userRecordName
            {
                throw CloudKitError(.accessDenied, "this push subscription is registered to another user; subscribe again in the browser")
            }
            try await writer.savePushToken(row)
            try await writer.savePushAddress(
                digest: digest,
                address: .webPush(
                    endpoint: endpoint, p256dh: Engine.unpadded(p256dh),
                    auth: Engine.unpadded(auth)))
        }
        return .object([:])
    }

    static func unpadded(_ text: String) -> String {
        String(text.prefix { $0 != "=" })
    }
}

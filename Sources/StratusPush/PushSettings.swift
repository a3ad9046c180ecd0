import Crypto
import Foundation
import StratusEngine
import StratusModel

/// A container environment's APNs provider settings (`stratus push apns`): the app developer's
/// token-signing key (`.p8`, PEM), its key ID, the team ID and the app's bundle ID (`apns-topic`).
public struct APNsSettings: Sendable, Equatable {
    public static let provider = "apns"

    public var keyPEM: String
    public var keyID: String
    public var teamID: String
    public var topic: String
    /// Where requests go instead of Apple's host for the token's environment (a test server).
    public var endpoint: String?

    public init(keyPEM: String, keyID: String, teamID: String, topic: String, endpoint: String?) {
        self.keyPEM = keyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.endpoint = endpoint
    }

    /// Apple's host for device tokens of an APNs environment (`development` or `production`).
    public static func appleEndpoint(apnsEnvironment: String) -> String {
        apnsEnvironment == "production" ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
    }

    /// Checks every value, so `stratus push apns` refuses what APNs would refuse later.
    public func validated() throws -> APNsSettings {
        _ = try signingKey()
        guard keyID.count == 10, keyID.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw CloudKitError.badRequest("--key-id: expected the 10-character key ID Apple shows for the key, got '\(keyID.prefix(40))'")
        }
        guard teamID.count == 10, teamID.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw CloudKitError.badRequest("--team-id: expected the 10-character team ID of the Apple developer account, got '\(teamID.prefix(40))'")
        }
        guard !topic.isEmpty, !topic.contains(where: { $0 == " " || $0 == "/" }) else {
            throw CloudKitError.badRequest("--topic: expected the app's bundle ID, e.g. com.example.app")
        }
        if let endpoint {
            guard let url = URL(string: endpoint), url.scheme == "https", url.host != nil else {
                throw CloudKitError.badRequest("--endpoint: expected an https URL (APNs speaks HTTP/2 over TLS only), got '\(endpoint.prefix(80))'")
            }
        }
        return self
    }

    func signingKey() throws -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        } catch {
            throw CloudKitError.badRequest("the APNs key is not a P-256 private key in PEM form (the AuthKey_XXXXXXXXXX.p8 file Apple issues)")
        }
    }

    public var json: String {
        var members: [String: JSONValue] = [
            "keyPEM": .string(keyPEM), "keyID": .string(keyID), "teamID": .string(teamID), "topic": .string(topic),
        ]
        if let endpoint { members["endpoint"] = .string(endpoint) }
        return JSONValue.object(members).serializedString
    }

    public init(json: String) throws {
        let value = try JSONValue.parse(Array(json.utf8))
        guard let pem = value["keyPEM"]?.stringValue, let keyID = value["keyID"]?.stringValue,
            let teamID = value["teamID"]?.stringValue, let topic = value["topic"]?.stringValue
        else {
            throw CloudKitError.badRequest("stored APNs settings are incomplete; run `stratus push apns` again")
        }
        self.init(keyPEM: pem, keyID: keyID, teamID: teamID, topic: topic, endpoint: value["endpoint"]?.stringValue)
    }
}

/// A container environment's VAPID key pair (RFC 8292), made by `stratus push vapid`. The public
/// key is the `applicationServerKey` a web app passes to `PushManager.subscribe`.
public struct VAPIDSettings: Sendable, Equatable {
    public static let provider = "vapid"

    /// The private key's raw 32 bytes, base64url.
    public var privateKey: String
    /// `mailto:` or `https:` contact for the push service's operator.
    public var subject: String

    public init(privateKey: String, subject: String) {
        self.privateKey = privateKey
        self.subject = subject
    }

    public static func generate(subject: String) throws -> VAPIDSettings {
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
            throw CloudKitError.badRequest("--subject: expected a mailto: or https: contact for push services, got '\(subject.prefix(80))'")
        }
        return VAPIDSettings(privateKey: Base64URL.encode(P256.Signing.PrivateKey().rawRepresentation), subject: subject)
    }

    func signingKey() throws -> P256.Signing.PrivateKey {
        guard let raw = Base64URL.decode(privateKey), let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw CloudKitError.badRequest("stored VAPID key is damaged; make a new one with `stratus push vapid`")
        }
        return key
    }

    /// The public key, uncompressed (65 bytes), base64url: the browser's `applicationServerKey`.
    public func publicKey() throws -> String {
        Base64URL.encode(try signingKey().publicKey.x963Representation)
    }

    public var json: String {
        JSONValue.object(["privateKey": .string(privateKey), "subject": .string(subject)]).serializedString
    }

    public init(json: String) throws {
        let value = try JSONValue.parse(Array(json.utf8))
        guard let key = value["privateKey"]?.stringValue, let subject = value["subject"]?.stringValue else {
            throw CloudKitError.badRequest("stored VAPID settings are incomplete; run `stratus push vapid` again")
        }
        self.init(privateKey: key, subject: subject)
    }
}

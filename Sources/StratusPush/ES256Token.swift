import Crypto
import Foundation
import StratusEngine
import StratusModel

/// A compact JWS signed with ES256 (RFC 7515/7518): base64url header and claims, and the raw
/// 64-byte r‖s signature — not DER — as both APNs provider tokens and VAPID expect.
enum ES256Token {
    static func make(header: [String: JSONValue], claims: [String: JSONValue], key: P256.Signing.PrivateKey) throws -> String {
        let signingInput =
            Base64URL.encode(Array(JSONValue.object(header).serializedString.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).serializedString.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

import Crypto
import Foundation
import StratusModel

/// How opaque values the server hands out (continuation markers, sync tokens) are made
/// tamper-evident: `[prefix.]base64url(JSON payload).base64url(HMAC-SHA256 of the payload)`.
/// What the payload means, and the error a client gets, belong to each caller.
struct SignedEnvelope {
    let key: SymmetricKey
    /// A literal first segment (`ck1` for sync tokens); `nil` for none.
    let prefix: String?

    func seal(_ payload: JSONValue) -> String {
        let bytes = payload.serialized()
        let signature = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        let body = Base64URL.encode(Data(bytes)) + "." + Base64URL.encode(Data(signature))
        return prefix.map { $0 + "." + body } ?? body
    }

    /// The payload, or `nil` when the text is malformed, altered, or signed with another key.
    func open(_ text: String) -> JSONValue? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if let prefix {
            guard parts.first.map(String.init) == prefix else { return nil }
            parts.removeFirst()
        }
        guard parts.count == 2, let payload = Base64URL.decode(String(parts[0])), let signature = Base64URL.decode(String(parts[1])),
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: payload, using: key)
        else { return nil }
        return try? JSONValue.parse(payload)
    }
}

/// URL-safe base64 without padding.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

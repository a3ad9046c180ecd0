import Crypto
import StratusEngine

/// Turns a caller's identity into an opaque id for logs and telemetry: the first 8 bytes of an
/// HMAC-SHA256 under a key of the operator's, as hex. The same caller gets the same id while the
/// key stays, so one client's requests can be followed; without the key the id cannot be traced
/// back to a user, key or token (an unkeyed hash of a user name could be, by hashing guesses).
public struct CallerAnonymizer: Sendable {
    private let key: [UInt8]

    public init(key: [UInt8]) {
        self.key = key
    }

    /// A key of its own for this process: ids are stable until the server restarts.
    public static func random() -> CallerAnonymizer {
        CallerAnonymizer(key: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// A key derived from the server's signing secret: every instance of one deployment gives a
    /// caller the same id, until the secret is rotated.
    public static func derived(fromSecret secret: [UInt8]) -> CallerAnonymizer {
        let key = HMAC<SHA256>.authenticationCode(for: Array("stratus caller ids".utf8), using: SymmetricKey(data: secret))
        return CallerAnonymizer(key: Array(key))
    }

    public func id(for caller: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(caller.utf8), using: SymmetricKey(data: key))
        return hexString(code.prefix(8))
    }
}

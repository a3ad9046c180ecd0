import Crypto
import StratusEngine
import Synchronization

/// Turns a caller's identity into an opaque id for logs and telemetry: the first 8 bytes of an
/// HMAC-SHA256 under a key of the operator's, as hex. The same caller gets the same id while the
/// key stays, so one client's requests can be followed; without the key the id cannot be traced
/// back to a user, key or token (an unkeyed hash of a user name could be, by hashing guesses).
public struct CallerAnonymizer: Sendable {
    private let key: [UInt8]
    /// Ids already computed: a busy server sees the same callers over and over, and a
    /// dictionary lookup is cheaper than an HMAC on every request.
    private let known = KnownIDs()

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
        if let id = known.ids.withLock({ $0[caller] }) { return id }
        let code = HMAC<SHA256>.authenticationCode(for: Array(caller.utf8), using: SymmetricKey(data: key))
        let id = hexString(code.prefix(8))
        known.ids.withLock { ids in
            // Bounded: past the limit start over rather than grow with every caller ever seen.
            if ids.count >= KnownIDs.limit { ids.removeAll(keepingCapacity: true) }
            ids[caller] = id
        }
        return id
    }
}

private final class KnownIDs: Sendable {
    static let limit = 10_000
    let ids = Mutex<[String: String]>([:])
}

import Crypto
import Foundation
import StratusModel

/// Opaque, versioned, signed sync tokens for change feeds. A token names the store it was issued
/// for (so it cannot be replayed against another user's database or zone) and a position in that
/// store's change sequence.
struct SyncTokenCodec {
    static let version: Int64 = 1
    let key: SymmetricKey

    enum Kind: String { case zone = "z", database = "d" }

    func encode(kind: Kind, store: StoreKey, zoneName: String?, sequence: Int64) -> String {
        var payload: [String: JSONValue] = [
            "v": .int(SyncTokenCodec.version), "k": .string(kind.rawValue), "s": .string(SyncTokenCodec.storeDigest(store)),
            "q": .int(sequence),
        ]
        if let zoneName { payload["z"] = .string(zoneName) }
        let bytes = JSONValue.object(payload).serialized()
        let signature = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        return "ck1." + Base64URL.encode(Data(bytes)) + "." + Base64URL.encode(Data(signature))
    }

    /// The sequence a token resumes after, or an error a client can act on.
    func decode(_ token: String, kind: Kind, store: StoreKey, zoneName: String?) throws(CloudKitError) -> Int64 {
        let invalid = CloudKitError.badRequest("syncToken is not valid: it was altered, or it was issued by another server; fetch again without a token")
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ck1", let payload = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])),
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: payload, using: key),
              let json = try? JSONValue.parse(payload), json["v"]?.int64Value == SyncTokenCodec.version,
              let sequence = json["q"]?.int64Value
        else { throw invalid }
        guard json["k"]?.stringValue == kind.rawValue else {
            throw .badRequest("syncToken is a \(kind == .zone ? "database" : "zone") token; send the token this endpoint returned")
        }
        guard json["s"]?.stringValue == SyncTokenCodec.storeDigest(store), json["z"]?.stringValue == zoneName else {
            throw .badRequest("syncToken belongs to another database or zone; send the token returned for this one")
        }
        return sequence
    }

    static func storeDigest(_ store: StoreKey) -> String {
        SHA256.hash(data: Array(store.description.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
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

extension CloudKitError {
    /// A token from before the change log's compaction horizon: the client must refetch.
    /// (CKWS has no dedicated code; the SDK maps this reason to `CKError.changeTokenExpired`.)
    static let tokenExpired = CloudKitError(.badRequest, ReasonPrefix.syncTokenExpired + ": changes before it were compacted; fetch again without a token (CKError.changeTokenExpired)")
}

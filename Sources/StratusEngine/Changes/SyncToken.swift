import Crypto
import Foundation
import StratusModel

/// Opaque, versioned, signed sync tokens for change feeds. A token names the store it was issued
/// for (so it cannot be replayed against another user's database or zone) and a position in that
/// store's change sequence.
struct SyncTokenCodec {
    static let version: Int64 = 1
    let envelope: SignedEnvelope

    init(keys: SigningKeys) { envelope = SignedEnvelope(keys: keys, prefix: "ck1") }

    enum Kind: String { case zone = "z", database = "d" }

    func encode(kind: Kind, store: StoreKey, zoneName: String?, sequence: Int64) -> String {
        var payload: [String: JSONValue] = [
            "v": .int(SyncTokenCodec.version), "k": .string(kind.rawValue), "s": .string(SyncTokenCodec.storeDigest(store)),
            "q": .int(sequence),
        ]
        if let zoneName { payload["z"] = .string(zoneName) }
        return envelope.seal(.object(payload))
    }

    /// The sequence a token resumes after, or an error a client can act on.
    func decode(_ token: String, kind: Kind, store: StoreKey, zoneName: String?) throws(CloudKitError) -> Int64 {
        let invalid = CloudKitError.badRequest("syncToken is not valid: it was altered, or it was issued by another server; fetch again without a token")
        guard let json = envelope.open(token), json["v"]?.int64Value == SyncTokenCodec.version,
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
        hexString(SHA256.hash(data: Array(store.description.utf8)).prefix(12))
    }
}

extension CloudKitError {
    /// A token from before the change log's compaction horizon: the client must refetch.
    /// (CKWS has no dedicated code; the SDK maps this reason to `CKError.changeTokenExpired`.)
    static let tokenExpired = CloudKitError(.badRequest, ReasonPrefix.syncTokenExpired + ": changes before it were compacted; fetch again without a token (CKError.changeTokenExpired)")
}

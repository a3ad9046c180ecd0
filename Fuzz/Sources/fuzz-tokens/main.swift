import FuzzSupport
@testable import StratusEngine
import StratusModel

/// The server's key and what a valid token for the fixture store carries.
enum Signing {
    static let keys = SigningKeys(current: [UInt8](repeating: 0x5A, count: 32))
    static let markers = ContinuationMarker(envelope: SignedEnvelope(keys: keys, prefix: nil))
    static let syncTokens = SyncTokenCodec(keys: keys)
    static let queryDigest = ContinuationMarker.digest(store: Fixtures.store, fingerprint: Array(#"{"recordType":"Note"}"#.utf8), zoneName: zoneName)
    static let storeDigest = SyncTokenCodec.storeDigest(Fixtures.store)
    static let zoneName = "_defaultZone"
}

/// Continuation markers and sync tokens, as a client sends them back. The first input byte picks
/// what the rest is:
/// - 0: the token text itself (forged, truncated, not base64, wrong prefix…);
/// - 1: a JSON payload, validly signed with the server's key, so the payload decoders run;
/// - 2: as 1, with the query digest, store digest and zone a valid token carries set, so the
///   decoding goes past those checks to the position and sort keys.
/// A marker that decodes encodes again to a marker that decodes to the same position.
func fuzzTokens(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    var candidates: [String] = []
    switch mode % 3 {
    case 0:
        let text = String(decoding: rest, as: UTF8.self)
        candidates = [text]
        if let decoded = Base64URL.decode(text) {
            precondition(Base64URL.decode(Base64URL.encode(decoded)) == decoded, "base64url does not round-trip")
        }
    default:
        guard var payload = try? JSONValue.parse(rest) else { return 0 }
        if mode % 3 == 2, var members = payload.objectValue {
            members["q"] = .string(Signing.queryDigest)
            members["s"] = .string(Signing.storeDigest)
            members["z"] = .string(Signing.zoneName)
            payload = .object(members)
        }
        candidates = [SignedEnvelope(keys: Signing.keys, prefix: nil).seal(payload), SignedEnvelope(keys: Signing.keys, prefix: "ck1").seal(payload)]
    }
    for text in candidates {
        let markers = Signing.markers
        if let position = try? markers.decode(text, queryDigest: Signing.queryDigest) {
            let again = try? markers.decode(markers.encode(position, queryDigest: Signing.queryDigest), queryDigest: Signing.queryDigest)
            precondition(again == position, "a continuation marker does not round-trip")
        }
        _ = try? Signing.syncTokens.decode(text, kind: .zone, store: Fixtures.store, zoneName: Signing.zoneName)
        _ = try? Signing.syncTokens.decode(text, kind: .database, store: Fixtures.store, zoneName: nil)
    }
    return 0
}

runFuzzer(setUp: { _ = (Signing.markers, Signing.syncTokens, Signing.queryDigest, Signing.storeDigest) }, fuzzTokens)

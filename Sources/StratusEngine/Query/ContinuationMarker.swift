import Crypto
import Foundation
import StratusModel

/// Opaque, versioned, signed query cursors. A marker holds the position of the last record
/// returned and a digest of the query it belongs to; it is refused if altered or used with a
/// different query.
struct ContinuationMarker {
    static let version: Int64 = 1

    let envelope: SignedEnvelope

    func encode(_ position: QueryPosition, queryDigest: String) -> String {
        let keys: [JSONValue] = position.sortKeys.map { key in
            switch key {
            case .null: return .null
            case .integer(let value): return .array(["i", .int(value)])
            case .real(let value): return .array(["r", .double(value)])
            case .text(let value): return .array(["t", .string(value)])
            }
        }
        let payload: JSONValue = .object([
            "v": .int(ContinuationMarker.version), "q": .string(queryDigest), "k": .array(keys),
            "z": .string(position.zoneName), "r": .string(position.recordName),
        ])
        return envelope.seal(payload)
    }

    func decode(_ marker: String, queryDigest: String) throws(CloudKitError) -> QueryPosition {
        let invalid = CloudKitError.badRequest("continuationMarker is not valid: it was altered, or it comes from another server; start the query again without it")
        guard let json = envelope.open(marker) else { throw invalid }
        guard json["v"]?.int64Value == ContinuationMarker.version else {
            throw .badRequest("continuationMarker has an unsupported version; start the query again without it")
        }
        guard json["q"]?.stringValue == queryDigest else {
            throw .badRequest("continuationMarker belongs to a different query (record type, filters, sort or zone changed); start the query again without it")
        }
        guard let zone = json["z"]?.stringValue, let name = json["r"]?.stringValue, let rawKeys = json["k"]?.arrayValue else { throw invalid }
        var keys: [SortKeyValue] = []
        for raw in rawKeys {
            if raw.isNull { keys.append(.null); continue }
            guard let pair = raw.arrayValue, pair.count == 2, let tag = pair[0].stringValue else { throw invalid }
            switch tag {
            case "i": guard let value = pair[1].int64Value else { throw invalid }; keys.append(.integer(value))
            case "r": guard let value = pair[1].doubleValue else { throw invalid }; keys.append(.real(value))
            case "t": guard let value = pair[1].stringValue else { throw invalid }; keys.append(.text(value))
            default: throw invalid
            }
        }
        return QueryPosition(sortKeys: keys, zoneName: zone, recordName: name)
    }

    /// A digest of everything that decides which rows a query returns and in what order.
    static func digest(store: StoreKey, fingerprint: [UInt8], zoneName: String?) -> String {
        let bytes = Array("\(store)|\(zoneName ?? "*")|".utf8) + fingerprint
        return hexString(SHA256.hash(data: bytes).prefix(12))
    }
}

import Crypto
import StratusModel

/// Gives each asset of a rendered record a signed, time-limited `downloadURL` with the `${f}`
/// file-name placeholder clients replace (docs/protocol.md §8). Only fields that are rendered get one,
/// so a fetch whose desiredKeys leave an asset out never touches it.
package struct AssetLinks: Sendable {
    let baseURL: String
    let envelope: SignedEnvelope
    let expires: Int64

    func downloadURL(checksum: String, size: Int64) -> String {
        let token = AssetCapability.seal(
            kind: AssetCapability.downloadKind,
            members: ["h": .string(checksum), "n": .int(size)], expires: expires, envelope: envelope)
        return "\(baseURL)/assets/1/download/\(token)/${f}"
    }

    /// The value with download URLs on its assets (and no receipts: those are for saving).
    func linked(_ value: FieldValue) -> FieldValue {
        switch value {
        case .asset(var asset):
            asset.receipt = nil
            if let checksum = asset.fileChecksum, let size = asset.size {
                asset.downloadURL = downloadURL(checksum: checksum, size: size)
            }
            return .asset(asset)
        case .list(.asset, let elements):
            return .list(.asset, elements.map(linked))
        default:
            return value
        }
    }
}

extension Engine {
    /// Download links for records rendered in answer to `scope`; `nil` outside HTTP.
    package func assetLinks(_ scope: RequestScope) -> AssetLinks? {
        scope.assetBaseURL.map {
            AssetLinks(baseURL: $0, envelope: envelope(), expires: nowMilliseconds() + limits.downloadURLLifetimeSeconds * 1000)
        }
    }
}

extension FieldValue {
    /// The assets held by this value (one, or each element of an asset list).
    public var assets: [AssetValue] {
        switch self {
        case .asset(let asset): return [asset]
        case .list(_, let elements): return elements.flatMap(\.assets)
        default: return []
        }
    }
}

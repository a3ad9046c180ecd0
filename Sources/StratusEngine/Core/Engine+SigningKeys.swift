import Foundation
import Synchronization

extension Engine {
    /// The keys in use now.
    public var signingKeys: SigningKeys { keyring.withLock { $0 } }

    /// An envelope signed with the current secret that opens with any secret still verifying.
    func envelope(prefix: String? = nil) -> SignedEnvelope { SignedEnvelope(keys: signingKeys, prefix: prefix) }

    /// Rereads the keys from their source, so a rotation made by `stratus secret rotate` (or by
    /// another instance) takes effect here: new tokens are signed with the new secret. A failure
    /// is logged and the keys in use stay.
    public func reloadSigningKeys() async {
        guard let signingKeySource else { return }
        do {
            let loaded = try await signingKeySource.loadSigningKeys()
            let changed = keyring.withLock { keys in
                defer { keys = loaded }
                return keys.current != loaded.current
            }
            if changed { logger.notice("the signing secret was rotated; new tokens and URLs are signed with the new one") }
        } catch {
            logger.warning("could not reread the signing secret: \(error); the one in use stays")
        }
    }
}

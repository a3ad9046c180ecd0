import Foundation
import StratusEngine
import StratusServer

/// Signing keys given by the operator instead of the data folder or the database:
/// `STRATUS_SECRET` signs (and verifies); `STRATUS_PREVIOUS_SECRET`, a comma-separated list,
/// only verifies. Rotating them across a fleet is done with the environment (see docs/postgres.md),
/// not with `stratus secret rotate`.
struct EnvironmentSecrets: SigningKeySource {
    /// Shortest `STRATUS_SECRET` accepted: 32 characters, such as `openssl rand -hex 32` prints.
    static let minimumLength = 32

    let keys: SigningKeys

    /// nil when `STRATUS_SECRET` is unset or empty.
    init?(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let secret = environment["STRATUS_SECRET"], !secret.isEmpty else {
            if environment["STRATUS_PREVIOUS_SECRET"].map({ !$0.isEmpty }) == true {
                throw DataFolderError("STRATUS_PREVIOUS_SECRET is set but STRATUS_SECRET is not; set the secret that signs as STRATUS_SECRET")
            }
            return nil
        }
        guard secret.count >= Self.minimumLength else {
            throw DataFolderError("STRATUS_SECRET has \(secret.count) characters; use at least \(Self.minimumLength), e.g. the output of `openssl rand -hex 32`")
        }
        let previous = (environment["STRATUS_PREVIOUS_SECRET"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .map { SigningKeys.Retired(secret: Array($0.utf8), verifiesUntil: .max) }
        keys = SigningKeys(current: Array(secret.utf8), previous: previous)
    }

    func loadSigningKeys() -> SigningKeys { keys }
}

import Crypto
import Foundation
import StratusModel

/// Checks a server-to-server signature (docs/protocol.md §2.3): ECDSA P-256 with SHA-256 over
/// `date:base64(sha256(body)):path`, where path includes the query string. A request that acts as
/// a user (`X-Stratus-Act-As-User`, beyond CloudKit) signs `date:base64(sha256(body)):path:user`,
/// so a captured request cannot be replayed as somebody else.
///
/// Decisions where clients differ: for a request without a body, the hash field may be the hash
/// of the empty string or empty; both are accepted. Signatures may be DER (what Apple's tools
/// produce) or raw r||s (64 bytes, what WebCrypto produces). Reasons never echo the signature.
struct RequestSignatureVerifier {
    var now: Date
    /// How far the signed date may be from the server's clock.
    var allowedSkew: TimeInterval = 600

    func verify(_ signed: SignedRequest, publicKeyPEM: String, actAsUser: String? = nil) throws {
        guard let date = RequestSignatureVerifier.parseDate(signed.date) else {
            throw CloudKitError(.authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date is not an ISO 8601 date such as 2026-01-25T22:15:43Z")
        }
        guard abs(date.timeIntervalSince(now)) <= allowedSkew else {
            throw CloudKitError(
                .authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date is more than 10 minutes from the server's clock; sign each request with the current date (check the machine's clock)")
        }
        guard let raw = Data(base64Encoded: signed.signature.trimmingCharacters(in: .whitespaces)), !raw.isEmpty else {
            throw CloudKitError(.authenticationFailed, "X-Apple-CloudKit-Request-SignatureV1 is not base64")
        }
        guard let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
            throw CloudKitError(.authenticationFailed, "the registered key cannot be read; register it again with `stratus key add`")
        }
        let signatures = [
            try? P256.Signing.ECDSASignature(derRepresentation: raw),
            raw.count == 64 ? try? P256.Signing.ECDSASignature(rawRepresentation: raw) : nil,
        ].compactMap { $0 }
        guard !signatures.isEmpty else {
            throw CloudKitError(.authenticationFailed, "X-Apple-CloudKit-Request-SignatureV1 is neither a DER nor a raw (r||s) ECDSA signature")
        }
        var hashes = [ServerKeyMessage.bodyHash(signed.body)]
        if signed.body.isEmpty { hashes.append("") }
        for hash in hashes {
            let message = ServerKeyMessage.message(date: signed.date, bodyHash: hash, pathAndQuery: signed.pathAndQuery, actingAs: actAsUser)
            if signatures.contains(where: { key.isValidSignature($0, for: message) }) { return }
        }
        if actAsUser != nil {
            throw CloudKitError(
                .authenticationFailed,
                "the server-to-server signature does not match this request; a request with X-Stratus-Act-As-User signs date:base64(sha256(body)):path:user (path with its query string, user as in the header) with the key registered under this key ID"
            )
        }
        throw CloudKitError(
            .authenticationFailed,
            "the server-to-server signature does not match this request; sign date:base64(sha256(body)):path (path with its query string) with the key registered under this key ID")
    }

    static func parseDate(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}

extension Engine {
    /// Registers a P-256 public key (PEM) for a container and returns its key ID (64 hex).
    public func addServerKey(container: String, publicKeyPEM: String, actAsUsers: Bool) async throws -> String {
        guard let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
            throw CloudKitError.badRequest(
                "the file is not a PEM P-256 public key; make one with `openssl ecparam -name prime256v1 -genkey -noout -out key.pem && openssl ec -in key.pem -pubout -out public.pem`")
        }
        let keyID = Engine.randomHex(bytes: 32)
        let row = ServerKeyRow(
            keyID: keyID, container: container, publicKeyPEM: key.pemRepresentation, actAsUsers: actAsUsers,
            createdMilliseconds: nowMilliseconds())
        try await storage.write { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            try await writer.addServerKey(row)
        }
        return keyID
    }

    public func serverKeys(container: String) async throws -> [ServerKeyRow] {
        try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.serverKeys(container: container)
        }
    }

    public func revokeServerKey(container: String, keyID: String) async throws {
        let removed = try await storage.write { writer in try await writer.revokeServerKey(container: container, keyID: keyID) }
        await forgetCachedCredentials()
        guard removed else {
            throw CloudKitError(.notFound, "container '\(container)' has no key '\(keyID.prefix(64))'; list keys with `stratus key list --container \(container)`")
        }
    }
}

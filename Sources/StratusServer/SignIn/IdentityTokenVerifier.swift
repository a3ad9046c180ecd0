import Foundation
import JWTKit
import StratusEngine
import StratusModel

/// An OpenID Connect provider the operator trusts (Sign in with Apple, Google, …).
public struct OIDCConfiguration: Sendable {
    /// The `iss` the provider puts in its identity tokens, e.g. `https://appleid.apple.com`.
    public var issuer: String
    /// This app's client ID at the provider: the `aud` tokens must carry.
    public var audience: String
    /// The provider's JSON Web Key Set (its public signing keys).
    public var jwksJSON: String

    public init(issuer: String, audience: String, jwksJSON: String) {
        self.issuer = issuer
        self.audience = audience
        self.jwksJSON = jwksJSON
    }
}

/// The claims Stratus reads from an identity token.
struct IdentityClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var email: String?
    var name: String?

    func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}

/// Verifies identity tokens against the configured provider with jwt-kit: signature by a key of
/// the JWKS (chosen by `kid`), expiry, issuer and audience. Every failure is AUTHENTICATION_FAILED
/// with a reason that names the check, never the token.
actor IdentityTokenVerifier {
    let configuration: OIDCConfiguration
    private var keys: JWTKeyCollection?

    init(configuration: OIDCConfiguration) {
        self.configuration = configuration
    }

    func verify(_ token: String) async throws -> IdentityClaims {
        let keys = try await keyCollection()
        // jwt-kit falls back to a default key when `kid` names none of the set; a token must
        // name a key of the provider's set, so a key it never published cannot be implied.
        guard let kid = IdentityTokenVerifier.keyID(ofToken: token), try knownKeyIDs().contains(kid) else {
            throw CloudKitError(.authenticationFailed, IdentityTokenVerifier.unknownKeyReason)
        }
        let claims: IdentityClaims
        do {
            claims = try await keys.verify(token, as: IdentityClaims.self)
        } catch let error as JWTError {
            throw CloudKitError(.authenticationFailed, IdentityTokenVerifier.reason(error))
        } catch {
            throw CloudKitError(.authenticationFailed, "identityToken is not a JWT signed by the configured provider")
        }
        guard claims.iss.value == configuration.issuer else {
            throw CloudKitError(.authenticationFailed, "identityToken was issued by another provider (this server trusts \(configuration.issuer))")
        }
        guard claims.aud.value.contains(configuration.audience) else {
            throw CloudKitError(.authenticationFailed, "identityToken was issued for another app (its audience is not \(configuration.audience))")
        }
        return claims
    }

    /// The `kid`s the provider's key set publishes.
    private func knownKeyIDs() throws -> Set<String> {
        let keys = (try? JSONValue.parse(Array(configuration.jwksJSON.utf8)))?["keys"]?.arrayValue ?? []
        return Set(keys.compactMap { $0["kid"]?.stringValue })
    }

    /// The `kid` of a JWT's header, if it has one.
    static func keyID(ofToken token: String) -> String? {
        guard let header = token.split(separator: ".", omittingEmptySubsequences: false).first else { return nil }
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        return (try? JSONValue.parse(Array(bytes)))?["kid"]?.stringValue
    }

    private func keyCollection() async throws -> JWTKeyCollection {
        if let keys { return keys }
        do {
            let collection = try await JWTKeyCollection().add(jwksJSON: configuration.jwksJSON)
            keys = collection
            return collection
        } catch {
            throw CloudKitError(.internalError, "the server's OIDC key set (--oidc-jwks) cannot be read; the operator must fix it")
        }
    }

    static let unknownKeyReason = "identityToken is signed with a key the provider's key set does not contain (its header must name one by kid)"

    static func reason(_ error: JWTError) -> String {
        switch error.errorType {
        case .claimVerificationFailure: return "identityToken has expired or its claims are invalid; sign in with the provider again"
        case .signatureVerificationFailed: return "identityToken's signature does not match the provider's keys"
        case .malformedToken: return "identityToken is not a well-formed JWT (header.payload.signature)"
        case .missingKIDHeader, .unknownKID: return unknownKeyReason
        default: return "identityToken could not be verified: it must be a JWT signed by the configured provider"
        }
    }
}

extension OIDCConfiguration {
    /// Checks that the key set can be read, so a bad `--oidc-jwks` stops the server at start.
    public func validate() async throws {
        do {
            _ = try await JWTKeyCollection().add(jwksJSON: jwksJSON)
        } catch {
            throw CloudKitError.badRequest("the OIDC key set is not a JSON Web Key Set with usable keys: \(error)")
        }
    }
}

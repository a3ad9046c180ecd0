import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// OpenID Connect identity tokens from a provider whose key set is generated here.
@Suite struct IdentityTokenTests {
    static let issuer = "https://id.example.com"
    static let audience = "com.example.app"

    /// A provider: one P-256 key published as a JWKS, and ES256 JWTs signed with it.
    struct Provider {
        let key = P256.Signing.PrivateKey()
        let kid = "key-1"

        var jwks: String {
            let raw = key.publicKey.rawRepresentation
            return #"{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"\#(kid)","x":"\#(Self.base64URL(raw.prefix(32)))","y":"\#(Self.base64URL(raw.suffix(32)))"}]}"#
        }

        func token(
            issuer: String = IdentityTokenTests.issuer, audience: String = IdentityTokenTests.audience, subject: String = "user-123",
            expires: Date = Date().addingTimeInterval(600), kid: String? = nil, signer: P256.Signing.PrivateKey? = nil,
            email: String = "pat@example.com"
        ) throws -> String {
            let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(kid ?? self.kid)"}"#
            let payload = #"{"iss":"\#(issuer)","aud":"\#(audience)","sub":"\#(subject)","exp":\#(Int(expires.timeIntervalSince1970)),"email":"\#(email)","name":"Pat Provider"}"#
            let signingInput = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(payload.utf8))
            let signature = try (signer ?? key).signature(for: Data(signingInput.utf8))
            return signingInput + "." + Self.base64URL(signature.rawRepresentation)
        }

        static func base64URL(_ data: some DataProtocol) -> String {
            Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    static func exchange(_ client: any TestClientProtocol, _ token: String) async throws -> (status: Int, json: JSONValue) {
        try await client.send(
            "/signin/oidc", body: JSONValue.object(["container": .string(RouterFixture.container), "identityToken": .string(token)]).serializedString,
            headers: [.contentType: "application/json"])
    }

    @Test func aValidIdentityTokenSignsInTheSameUserEveryTime() async throws {
        let provider = Provider()
        let configuration = ServerConfiguration(identityProvider: OIDCConfiguration(issuer: Self.issuer, audience: Self.audience, jwksJSON: provider.jwks))
        try await RouterFixture.run(configuration: configuration) { fixture, client in
            let first = try await IdentityTokenTests.exchange(client, try provider.token())
            #expect(first.status == 200, "\(first.json)")
            let userRecordName = try #require(first.json["userRecordName"]?.stringValue)
            let webAuthToken = try #require(first.json["webAuthToken"]?.stringValue)
            let caller = try await client.call(fixture.path("users/caller", webAuthToken: webAuthToken), method: .get)
            #expect(caller.json["userRecordName"]?.stringValue == userRecordName)
            #expect(caller.json["emailAddress"] == "pat@example.com")
            #expect(caller.json["firstName"] == "Pat")
            let again = try await IdentityTokenTests.exchange(client, try provider.token())
            #expect(again.json["userRecordName"]?.stringValue == userRecordName)
            let someoneElse = try await IdentityTokenTests.exchange(client, try provider.token(subject: "user-456", email: "other@example.com"))
            #expect(someoneElse.json["userRecordName"]?.stringValue != userRecordName)
        }
    }

    @Test(arguments: ["expired", "wrong audience", "wrong issuer", "wrong key", "unknown kid", "unknown kid, known key", "not a JWT", "garbage segments"])
    func badIdentityTokensAreAuthenticationFailed(_ problem: String) async throws {
        let provider = Provider()
        let configuration = ServerConfiguration(identityProvider: OIDCConfiguration(issuer: Self.issuer, audience: Self.audience, jwksJSON: provider.jwks))
        try await RouterFixture.run(configuration: configuration) { _, client in
            let token: String =
                switch problem {
                case "expired": try provider.token(expires: Date().addingTimeInterval(-60))
                case "wrong audience": try provider.token(audience: "com.example.other")
                case "wrong issuer": try provider.token(issuer: "https://evil.example.net")
                case "wrong key": try provider.token(signer: P256.Signing.PrivateKey())
                case "unknown kid": try provider.token(kid: "key-2", signer: P256.Signing.PrivateKey())
                // Signed by the published key but naming a key the set does not have.
                case "unknown kid, known key": try provider.token(kid: "key-2")
                case "not a JWT": "hello"
                default: "a.b.c"
                }
            let response = try await IdentityTokenTests.exchange(client, token)
            #expect(response.status == 401, "\(problem): \(response.json)")
            #expect(response.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            #expect(response.json["reason"]?.stringValue?.contains("identityToken") == true)
            #expect(response.json["reason"]?.stringValue?.contains(token) == false || token.count < 6)
        }
    }

    @Test func withoutAProviderTheEndpointSaysHowToConfigureOne() async throws {
        try await RouterFixture.run { _, client in
            let response = try await IdentityTokenTests.exchange(client, "a.b.c")
            #expect(response.status == 400)
            #expect(response.json["reason"]?.stringValue?.contains("--oidc-issuer") == true)
        }
    }
}

import Foundation
import StratusModel

extension Engine {
    /// Sets which browser origins may use an API token (`["*"]` for any) and where the sign-in
    /// page returns the web auth token (`nil`: postMessage to the opener).
    public func configureAPIToken(_ apiToken: String, container: String, allowedOrigins: [String], callbackURL: String?) async throws {
        try Engine.checkOrigins(allowedOrigins)
        if let callbackURL, URL(string: callbackURL)?.scheme == nil {
            throw CloudKitError.badRequest("callback URL '\(callbackURL.prefix(200))' is not an absolute URL such as https://app.example.com/signed-in")
        }
        let digest = secretDigest(apiToken)
        try await storage.write { writer in
            guard try await writer.apiToken(digest: digest)?.container == container else {
                throw CloudKitError(.notFound, "no such API token in container '\(container)'")
            }
            try await writer.setAPITokenSettings(digest: digest, allowedOrigins: allowedOrigins, callbackURL: callbackURL)
        }
        await forgetCachedCredentials()
    }

    /// The container's API tokens, by handle (the tokens themselves are not stored).
    public func apiTokens(container: String) async throws -> [APITokenRow] {
        try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.apiTokens(container: container)
        }
    }

    /// Revokes a token by its handle (from `apiTokens`) or by the token itself.
    public func revokeAPIToken(container: String, idOrToken: String) async throws {
        let id = idOrToken.count == 64 ? String(secretDigest(idOrToken).prefix(16)) : idOrToken
        let removed = try await storage.write { writer in try await writer.revokeAPIToken(container: container, id: id) }
        guard removed else {
            throw CloudKitError(.notFound, "container '\(container)' has no API token '\(id.prefix(16))'; list them with `stratus token list --container \(container)`")
        }
        await forgetCachedCredentials()
    }

    /// Origins are `scheme://host[:port]` or `*`.
    static func checkOrigins(_ origins: [String]) throws {
        guard !origins.isEmpty else { throw CloudKitError.badRequest("give at least one origin, or * for any") }
        for origin in origins where origin != "*" {
            guard let url = URL(string: origin), let scheme = url.scheme, url.host != nil,
                url.path.isEmpty || url.path == "/", ["http", "https"].contains(scheme.lowercased())
            else {
                throw CloudKitError.badRequest("origin '\(origin.prefix(200))' is not scheme://host[:port], for example https://app.example.com")
            }
        }
    }
}

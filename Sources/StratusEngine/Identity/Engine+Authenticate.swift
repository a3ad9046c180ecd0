import Foundation
import StratusModel

extension Engine {
    /// Resolves who is calling. Either an API token of the container (plus, optionally, a web auth
    /// token of one of its users) or a server-to-server signature. Private and shared databases
    /// need a user; a key reaches them only by acting as a user it is allowed to act as.
    public func authenticate(
        container: String, environment: DatabaseEnvironment, scope: DatabaseScope,
        credentials: RequestCredentials, signInURL: @autoclosure () -> String
    ) async throws -> Authenticated {
        if let signed = credentials.signature {
            return try await authenticateServerKey(
                signed, container: container, environment: environment, scope: scope,
                actAsUser: credentials.actAsUser)
        }
        guard let apiToken = credentials.apiToken, !apiToken.isEmpty else {
            throw CloudKitError(.authenticationFailed, "missing ckAPIToken query parameter (or server-to-server key headers); create a token with `stratus token create --container \(container)`")
        }
        let (containerRow, tokenRow) = try await apiTokenIdentity(apiToken, container: container)
        var user: UserRow?
        var replacement: String?
        if let webAuthToken = credentials.webAuthToken {
            (user, replacement) = try await useWebAuthToken(webAuthToken, container: container, signInURL: signInURL)
        }
        if scope != .public, user == nil {
            var error = CloudKitError(.authenticationRequired, "the \(scope.rawValue) database needs a signed-in user: add ckWebAuthToken")
            error.redirectURL = signInURL()
            throw error
        }
        let caller = Caller(userRecordName: user?.userRecordName, developerRecordName: containerRow.developerRecordName)
        let store = StoreKey(container: container, environment: environment, scope: scope, owner: user?.userRecordName ?? "")
        let access = scope == .public ? try await accessPolicy(container: container, environment: environment, user: user?.userRecordName) : .unrestricted
        return Authenticated(
            scope: RequestScope(store: store, caller: caller, access: access), apiToken: tokenRow,
            replacementWebAuthToken: replacement,
            rateLimitKey: user.map { "user:\(container)|\($0.userRecordName)" } ?? "token:\(tokenRow.id)")
    }

    /// The container and settings of an API token, which must belong to `container`.
    func apiTokenIdentity(_ apiToken: String, container: String) async throws -> (ContainerRow, APITokenRow) {
        if let cached = apiTokenCache.value(for: apiToken), cached.0.identifier == container { return cached }
        let digest = secretDigest(apiToken)
        let (containerRow, tokenRow) = try await storage.read { reader in
            (try await reader.container(container), try await reader.apiToken(digest: digest))
        }
        guard let containerRow else { throw Engine.unknownContainer(container) }
        guard let tokenRow, tokenRow.container == container else {
            throw CloudKitError(.authenticationFailed, "ckAPIToken is not valid for container '\(container)'; list valid tokens with `stratus token list --container \(container)`")
        }
        apiTokenCache.store((containerRow, tokenRow), for: apiToken)
        return (containerRow, tokenRow)
    }

    /// The settings of an API token if it is valid for `container` (CORS preflights use this).
    public func apiTokenSettings(_ apiToken: String, container: String) async -> APITokenRow? {
        try? await apiTokenIdentity(apiToken, container: container).1
    }

    /// The user a web auth token signs in. Operator tokens (from `stratus user create`) are
    /// reusable and never rotate. Sign-in tokens rotate: the response carries the next token, and
    /// each use renews the session's lifetime; whether the token used stays valid is the
    /// engine's `webAuthTokenPolicy`. An unknown, revoked or expired token is AUTHENTICATION_REQUIRED.
    func useWebAuthToken(_ token: String, container: String, signInURL: () -> String) async throws -> (UserRow, String?) {
        let key = "\(container)|\(token)"
        if let cached = webAuthCache.value(for: key) { return (cached, nil) }
        let presented = SessionTokenText(token)
        let digest = secretDigest(presented.secret)
        let now = nowMilliseconds()
        let policy = webAuthTokenPolicy
        let outcome: (UserRow, String?)? = try await storage.write { writer in
            guard let session = try await writer.webSession(digest: digest, container: container) else { return nil }
            guard session.rotates else { return (session.user, nil) }
            guard session.expiresMilliseconds > now else {
                _ = try await writer.removeWebSession(digest: digest)
                return nil
            }
            let expires = now + session.lifetimeMilliseconds
            switch policy {
            case .session:
                try await writer.renewWebSession(digest: digest, expiresMilliseconds: expires)
                return (session.user, presented.next)
            case .singleUse:
                _ = try await writer.removeWebSession(digest: digest)
                let replacement = Engine.randomWebAuthToken()
                try await writer.addWebSession(
                    digest: secretDigest(replacement), container: container,
                    userRecordName: session.user.userRecordName, expiresMilliseconds: expires,
                    lifetimeMilliseconds: session.lifetimeMilliseconds)
                return (session.user, replacement)
            }
        }
        guard let (user, replacement) = outcome else {
            var error = CloudKitError(.authenticationRequired, "ckWebAuthToken is not valid, was signed out, or has expired; sign in again")
            error.redirectURL = signInURL()
            throw error
        }
        if replacement == nil { webAuthCache.store(user, for: key) }
        return (user, replacement)
    }

    /// The public-database policy of a user (or of an anonymous caller when `user` is nil).
    func accessPolicy(container: String, environment: DatabaseEnvironment, user: String?) async throws -> AccessPolicy {
        let grantsKey = "\(container)|\(environment.rawValue)"
        let rolesKey = "\(grantsKey)|\(user ?? "")"
        var grants = grantsCache.value(for: grantsKey)
        var roles = user == nil ? [] : rolesCache.value(for: rolesKey)
        if grants == nil || roles == nil {
            let loaded = try await storage.read { reader in
                let grants = try await reader.grants(container: container, environment: environment)
                guard let user else { return (grants, Set<String>()) }
                return (grants, try await reader.roles(of: user, container: container, environment: environment))
            }
            grants = loaded.0
            roles = loaded.1
            grantsCache.store(loaded.0, for: grantsKey)
            if user != nil { rolesCache.store(loaded.1, for: rolesKey) }
        }
        var held: Set<String> = [BuiltInRole.world]
        if user != nil { held.formUnion(roles ?? []); held.insert(BuiltInRole.authenticated) }
        return AccessPolicy(grants: AccessPolicy.grouping(grants ?? []), roles: held, userRecordName: user)
    }

    /// A server-to-server request: the key must be registered for the container and the signature
    /// valid. The key acts as the developer in the public database, or as a named user when it
    /// holds the act-as-user right.
    func authenticateServerKey(
        _ signed: SignedRequest, container: String, environment: DatabaseEnvironment,
        scope: DatabaseScope, actAsUser: String?
    ) async throws -> Authenticated {
        let (containerRow, key, actingUser) = try await storage.read { reader in
            let acting: UserAccount? = if let actAsUser { try await reader.userAccount(container: container, userRecordName: actAsUser) } else { nil }
            return (try await reader.container(container), try await reader.serverKey(id: signed.keyID), acting)
        }
        guard let containerRow else { throw Engine.unknownContainer(container) }
        guard let key, key.container == container else {
            throw CloudKitError(.authenticationFailed, "X-Apple-CloudKit-Request-KeyID names no key of container '\(container)'; list keys with `stratus key list --container \(container)`")
        }
        try RequestSignatureVerifier(now: Date()).verify(signed, publicKeyPEM: key.publicKeyPEM, actAsUser: actAsUser)
        let keyBudget = "key:\(key.keyID)"
        guard let actAsUser else {
            guard scope == .public else {
                throw CloudKitError(
                    .accessDenied,
                    "a server-to-server key acts as the developer, who has no \(scope.rawValue) database; to work in a user's, register the key with --act-as-users and name the user in X-Stratus-Act-As-User"
                )
            }
            let caller = Caller(userRecordName: nil, developerRecordName: containerRow.developerRecordName)
            let store = StoreKey(container: container, environment: environment, scope: scope, owner: "")
            return Authenticated(
                scope: RequestScope(store: store, caller: caller), apiToken: nil,
                replacementWebAuthToken: nil, rateLimitKey: keyBudget)
        }
        guard key.actAsUsers else {
            throw CloudKitError(.accessDenied, "this server-to-server key may not act as users; register a key with `stratus key add --act-as-users`")
        }
        guard let actingUser else {
            throw CloudKitError(.badRequest, "X-Stratus-Act-As-User names no user of container '\(container)'; use a userRecordName such as `stratus user create` prints")
        }
        let userName = actingUser.user.userRecordName
        let caller = Caller(userRecordName: userName, developerRecordName: containerRow.developerRecordName)
        let store = StoreKey(container: container, environment: environment, scope: scope, owner: userName)
        let access = scope == .public ? try await accessPolicy(container: container, environment: environment, user: userName) : .unrestricted
        return Authenticated(
            scope: RequestScope(store: store, caller: caller, access: access), apiToken: nil,
            replacementWebAuthToken: nil, rateLimitKey: keyBudget)
    }

    /// Forgets cached credentials, roles and grants here and on every other instance (after a
    /// revocation or a role change).
    func forgetCachedCredentials() async {
        clearCredentialCaches()
        await announce([.credentialsChanged])
    }

    /// Forgets this instance's cached credentials, roles and grants.
    func clearCredentialCaches() {
        apiTokenCache.removeAll()
        webAuthCache.removeAll()
        grantsCache.removeAll()
        rolesCache.removeAll()
    }
}

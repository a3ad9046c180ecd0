import StratusModel

/// An API token as listed: never the token itself, only a short handle derived from its digest.
public struct APITokenRow: Sendable, Hashable {
    /// The first 16 hex digits of the token's SHA-256: what `stratus token list|revoke` shows and takes.
    public var id: String
    public var container: String
    /// Origins browsers may call from (`https://app.example.com`), or `["*"]` for any.
    public var allowedOrigins: [String]
    /// Where the sign-in page sends the user back with `ckWebAuthToken=`; `nil` means postMessage.
    public var callbackURL: String?
    public var createdMilliseconds: Int64

    public init(id: String, container: String, allowedOrigins: [String], callbackURL: String?, createdMilliseconds: Int64) {
        self.id = id
        self.container = container
        self.allowedOrigins = allowedOrigins
        self.callbackURL = callbackURL
        self.createdMilliseconds = createdMilliseconds
    }

    /// Whether a browser page at `origin` may use this token.
    public func allows(origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains { $0.lowercased() == origin.lowercased() }
    }

    static func id(ofDigest digest: String) -> String { String(digest.prefix(16)) }
}

/// A registered server-to-server key (P-256 public key).
public struct ServerKeyRow: Sendable, Hashable {
    public var keyID: String
    public var container: String
    public var publicKeyPEM: String
    /// Whether the key may act as a named user (private databases); see `Caller`.
    public var actAsUsers: Bool
    public var createdMilliseconds: Int64

    public init(keyID: String, container: String, publicKeyPEM: String, actAsUsers: Bool, createdMilliseconds: Int64) {
        self.keyID = keyID
        self.container = container
        self.publicKeyPEM = publicKeyPEM
        self.actAsUsers = actAsUsers
        self.createdMilliseconds = createdMilliseconds
    }
}

/// A user with their account settings.
public struct UserAccount: Sendable, Hashable {
    public var user: UserRow
    /// Lowercased; empty when unknown.
    public var email: String
    /// bcrypt hash; empty for accounts without a password.
    public var passwordHash: String
    public var discoverable: Bool
    /// `issuer|subject` of an OpenID Connect identity; empty when none.
    public var identitySubject: String

    public init(user: UserRow, email: String = "", passwordHash: String = "", discoverable: Bool = false, identitySubject: String = "") {
        self.user = user
        self.email = email
        self.passwordHash = passwordHash
        self.discoverable = discoverable
        self.identitySubject = identitySubject
    }
}

/// A web auth token's user and lifetime.
public struct WebSession: Sendable, Hashable {
    public var user: UserRow
    /// 0 for operator tokens, which neither expire nor rotate.
    public var expiresMilliseconds: Int64
    /// How far each rotation moves the expiry (30 minutes, or 2 weeks for "keep me signed in").
    public var lifetimeMilliseconds: Int64

    public init(user: UserRow, expiresMilliseconds: Int64, lifetimeMilliseconds: Int64) {
        self.user = user
        self.expiresMilliseconds = expiresMilliseconds
        self.lifetimeMilliseconds = lifetimeMilliseconds
    }

    public var rotates: Bool { expiresMilliseconds != 0 }
}

/// One `GRANT … TO role` of a record type.
public struct GrantRow: Sendable, Hashable {
    public var recordType: String
    public var role: String
    public var permissions: Set<RecordPermission>

    public init(recordType: String, role: String, permissions: Set<RecordPermission>) {
        self.recordType = recordType
        self.role = role
        self.permissions = permissions
    }
}

/// Reads of accounts, credentials, keys, roles and grants.
public protocol IdentityStorageReader: Sendable {
    func apiToken(digest: String) async throws -> APITokenRow?
    func apiTokens(container: String) async throws -> [APITokenRow]
    func serverKey(id: String) async throws -> ServerKeyRow?
    func serverKeys(container: String) async throws -> [ServerKeyRow]
    func userAccount(container: String, userRecordName: String) async throws -> UserAccount?
    func userAccount(container: String, email: String) async throws -> UserAccount?
    func userAccount(container: String, identitySubject: String) async throws -> UserAccount?
    func discoverableUsers(container: String, limit: Int) async throws -> [UserAccount]
    func webSession(digest: String, container: String) async throws -> WebSession?
    func securityRoles(container: String, environment: DatabaseEnvironment) async throws -> [String]
    func roles(of userRecordName: String, container: String, environment: DatabaseEnvironment) async throws -> Set<String>
    func grants(container: String, environment: DatabaseEnvironment) async throws -> [GrantRow]
}

/// Writes of accounts, credentials, keys, roles and grants.
public protocol IdentityStorageWriter: IdentityStorageReader {
    func setAPITokenSettings(digest: String, allowedOrigins: [String], callbackURL: String?) async throws
    /// Returns whether a token with that handle existed in the container.
    func revokeAPIToken(container: String, id: String) async throws -> Bool
    func addServerKey(_ key: ServerKeyRow) async throws
    func revokeServerKey(container: String, keyID: String) async throws -> Bool
    func saveUserAccount(_ account: UserAccount) async throws
    func addWebSession(
        digest: String, container: String, userRecordName: String, expiresMilliseconds: Int64,
        lifetimeMilliseconds: Int64) async throws
    /// Moves a session's expiry (each use renews it).
    func renewWebSession(digest: String, expiresMilliseconds: Int64) async throws
    /// Returns whether the token existed.
    func removeWebSession(digest: String) async throws -> Bool
    func createSecurityRole(_ name: String, container: String, environment: DatabaseEnvironment) async throws
    func assignRole(_ role: String, to userRecordName: String, container: String, environment: DatabaseEnvironment) async throws
    /// Replaces the permissions of `role` on `grant.recordType`. An empty set is kept as a row, so
    /// a type whose grants were all revoked does not fall back to the defaults.
    func saveGrant(_ grant: GrantRow, container: String, environment: DatabaseEnvironment) async throws
}

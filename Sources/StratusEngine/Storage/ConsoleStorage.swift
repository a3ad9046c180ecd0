/// A console account (not an app user).
public struct ConsoleOperator: Sendable, Hashable {
    /// Lowercased.
    public var email: String
    /// bcrypt hash; empty when the operator has no password (signs in by one-time link only).
    public var passwordHash: String
    public var createdMilliseconds: Int64

    public init(email: String, passwordHash: String, createdMilliseconds: Int64) {
        self.email = email
        self.passwordHash = passwordHash
        self.createdMilliseconds = createdMilliseconds
    }
}

/// A signed-in console browser.
public struct ConsoleSession: Sendable, Hashable {
    public var email: String
    /// The token every state-changing form of this session must carry.
    public var csrfToken: String
    public var expiresMilliseconds: Int64

    public init(email: String, csrfToken: String, expiresMilliseconds: Int64) {
        self.email = email
        self.csrfToken = csrfToken
        self.expiresMilliseconds = expiresMilliseconds
    }
}

/// One change made in the console.
public struct ConsoleAuditEntry: Sendable, Hashable {
    public var atMilliseconds: Int64
    public var operatorEmail: String
    public var container: String
    /// What was done, e.g. `record.delete`.
    public var action: String
    /// The object and details, in words.
    public var detail: String

    public init(atMilliseconds: Int64, operatorEmail: String, container: String, action: String, detail: String) {
        self.atMilliseconds = atMilliseconds
        self.operatorEmail = operatorEmail
        self.container = container
        self.action = action
        self.detail = detail
    }
}

/// Reads of the console's accounts, sessions and audit log.
public protocol ConsoleStorageReader: Sendable {
    func consoleOperator(email: String) async throws -> ConsoleOperator?
    func consoleOperators() async throws -> [ConsoleOperator]
    /// The session of a cookie (SHA-256 hex digest), expired or not.
    func consoleSession(digest: String) async throws -> ConsoleSession?
    /// The newest audit entries first, at most `limit`.
    func consoleAudit(limit: Int) async throws -> [ConsoleAuditEntry]
    /// Every container's identifier, sorted.
    func containerIdentifiers() async throws -> [String]
    /// A container's users (any discoverability) by record name, at most `limit`.
    func userAccounts(container: String, limit: Int) async throws -> [UserAccount]
}

/// Writes of the console's accounts, sessions and audit log.
public protocol ConsoleStorageWriter: ConsoleStorageReader {
    /// Adds the operator, or replaces its password hash when it exists.
    func saveConsoleOperator(_ account: ConsoleOperator) async throws
    func addConsoleSession(digest: String, session: ConsoleSession) async throws
    func removeConsoleSession(digest: String) async throws
    /// Drops sessions and links that expired before `nowMilliseconds`.
    func removeExpiredConsoleSessions(nowMilliseconds: Int64) async throws
    func addConsoleLink(digest: String, email: String, expiresMilliseconds: Int64) async throws
    /// Removes a one-time link and returns its operator, if it existed and had not expired.
    func takeConsoleLink(digest: String, nowMilliseconds: Int64) async throws -> String?
    func appendConsoleAudit(_ entry: ConsoleAuditEntry, id: String) async throws
}

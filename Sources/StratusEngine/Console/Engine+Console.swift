import Foundation

/// The web console's accounts: operators (separate from every container's app users), their
/// browser sessions, one-time sign-in links and the audit log of what they change.
extension Engine {
    /// How long a console session lasts from sign-in; it is not renewed by use.
    public static let consoleSessionLifetimeMilliseconds: Int64 = 8 * 3600 * 1000
    /// How long the one-time link printed on first start works.
    public static let consoleLinkLifetimeMilliseconds: Int64 = 24 * 3600 * 1000
    /// The operator the first start creates (signs in through the printed link).
    public static let firstOperatorEmail = "admin@localhost"

    /// Adds an operator, or sets the password of an existing one. An empty password makes an
    /// operator who signs in only through a one-time link.
    public func saveConsoleOperator(email: String, password: String, hasher: any PasswordHashing) async throws {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.contains("@"), email.count <= 254, !email.contains(where: \.isWhitespace) else {
            throw CloudKitError.badRequest("'\(email)' is not an email address; give one like ops@example.com")
        }
        if !password.isEmpty {
            guard password.count >= 8 else { throw CloudKitError.badRequest("the password is too short; use at least 8 characters") }
            guard password.utf8.count <= 72 else { throw CloudKitError.badRequest("the password is too long; use at most 72 bytes (bcrypt reads no more)") }
        }
        let hash = password.isEmpty ? "" : hasher.hash(password)
        try await storage.write { writer in
            let created = try await writer.consoleOperator(email: email)?.createdMilliseconds ?? nowMilliseconds()
            try await writer.saveConsoleOperator(ConsoleOperator(email: email, passwordHash: hash, createdMilliseconds: created))
        }
    }

    public func consoleOperators() async throws -> [ConsoleOperator] {
        try await storage.read { reader in try await reader.consoleOperators() }
    }

    /// Checks an operator's password (throttled like app sign-ins: waits grow after five wrong
    /// passwords for one address) and starts a session. Returns the session cookie's secret.
    public func signInToConsole(
        email: String, password: String, hasher: any PasswordHashing,
        lifetimeMilliseconds: Int64 = Engine.consoleSessionLifetimeMilliseconds
    ) async throws -> (cookie: String, session: ConsoleSession) {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        _ = try await checkPassword(
            password, address: "console|\(email)", hasher: hasher,
            lookUp: { writer in try await writer.consoleOperator(email: email) }, hash: \.passwordHash)
        return try await startConsoleSession(email: email, lifetimeMilliseconds: lifetimeMilliseconds)
    }

    /// A new session for an operator.
    public func startConsoleSession(email: String, lifetimeMilliseconds: Int64 = Engine.consoleSessionLifetimeMilliseconds) async throws -> (cookie: String, session: ConsoleSession) {
        let cookie = Engine.randomHex(bytes: 32)
        let session = ConsoleSession(
            email: email, csrfToken: Engine.randomHex(bytes: 32),
            expiresMilliseconds: nowMilliseconds() + lifetimeMilliseconds)
        let now = nowMilliseconds()
        try await storage.write { writer in
            try await writer.removeExpiredConsoleSessions(nowMilliseconds: now)
            try await writer.addConsoleSession(digest: secretDigest(cookie), session: session)
        }
        return (cookie, session)
    }

    /// The live session of a cookie, or nil (unknown or expired).
    public func consoleSession(cookie: String) async throws -> ConsoleSession? {
        let digest = secretDigest(cookie)
        guard let session = try await storage.read({ reader in try await reader.consoleSession(digest: digest) }) else { return nil }
        return session.expiresMilliseconds > nowMilliseconds() ? session : nil
    }

    public func endConsoleSession(cookie: String) async throws {
        let digest = secretDigest(cookie)
        try await storage.write { writer in try await writer.removeConsoleSession(digest: digest) }
    }

    /// A one-time sign-in link's secret for an operator (created without a password when new).
    public func createConsoleLink(email: String = Engine.firstOperatorEmail) async throws -> String {
        let secret = Engine.randomHex(bytes: 24)
        let email = email.lowercased()
        let expires = nowMilliseconds() + Engine.consoleLinkLifetimeMilliseconds
        try await storage.write { writer in
            if try await writer.consoleOperator(email: email) == nil {
                try await writer.saveConsoleOperator(ConsoleOperator(email: email, passwordHash: "", createdMilliseconds: nowMilliseconds()))
            }
            try await writer.addConsoleLink(digest: secretDigest(secret), email: email, expiresMilliseconds: expires)
        }
        return secret
    }

    /// Uses up a one-time link: a session for its operator, or nil when it was used or expired.
    public func redeemConsoleLink(_ secret: String, lifetimeMilliseconds: Int64 = Engine.consoleSessionLifetimeMilliseconds) async throws -> (cookie: String, session: ConsoleSession)? {
        let digest = secretDigest(secret)
        let now = nowMilliseconds()
        guard let email = try await storage.write({ writer in try await writer.takeConsoleLink(digest: digest, nowMilliseconds: now) }) else {
            return nil
        }
        return try await startConsoleSession(email: email, lifetimeMilliseconds: lifetimeMilliseconds)
    }

    /// Writes one audit entry: every change the console makes calls this.
    public func auditConsoleChange(operator email: String, container: String, action: String, detail: String) async throws {
        let entry = ConsoleAuditEntry(atMilliseconds: nowMilliseconds(), operatorEmail: email, container: container, action: action, detail: detail)
        try await storage.write { writer in try await writer.appendConsoleAudit(entry, id: UUID().uuidString) }
    }

    public func consoleAudit(limit: Int = 200) async throws -> [ConsoleAuditEntry] {
        try await storage.read { reader in try await reader.consoleAudit(limit: limit) }
    }
}

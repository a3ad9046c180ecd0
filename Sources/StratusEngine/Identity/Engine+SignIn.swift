import Foundation
import StratusModel

/// Hashes and checks passwords (bcrypt in the server). The engine stores only hashes.
public protocol PasswordHashing: Sendable {
    func hash(_ password: String) -> String
    func verify(_ password: String, hash: String) -> Bool
}

/// A session handed out by sign-in or sign-up.
public struct SignedIn: Sendable {
    public var userRecordName: String
    /// Every answer to a request that uses it carries the next one (see `WebAuthTokenPolicy`).
    public var webAuthToken: String
    public var expiresMilliseconds: Int64
}

/// How long a sign-in lasts (renewed by each use): 30 minutes, or 2 weeks with "keep me signed in".
public enum SessionLifetime {
    public static let standard: Int64 = 30 * 60 * 1000
    public static let kept: Int64 = 14 * 24 * 3600 * 1000
    public static func milliseconds(keepSignedIn: Bool) -> Int64 { keepSignedIn ? kept : standard }
}

extension Engine {
    /// Creates a password account and signs it in.
    public func signUp(
        container: String, name: String, email: String, password: String, discoverable: Bool,
        keepSignedIn: Bool, hasher: any PasswordHashing
    ) async throws -> SignedIn {
        try Engine.validateEmail(email)
        try Engine.validatePassword(password)
        let hash = hasher.hash(password)
        let created = try await createUser(
            name: name.isEmpty ? email : name, container: container,
            options: NewUserOptions(email: email, passwordHash: hash, discoverable: discoverable))
        // The operator token `createUser` makes is not for web clients: drop it, hand out a session.
        _ = try await storage.write { writer in try await writer.removeWebSession(digest: secretDigest(created.webAuthToken)) }
        return try await startSession(container: container, userRecordName: created.userRecordName, keepSignedIn: keepSignedIn)
    }

    /// Checks an email and password. Repeated failures for one address are throttled (THROTTLED
    /// with `retryAfter`), whether or not the address exists, so guessing gains nothing.
    public func signIn(
        container: String, email: String, password: String, keepSignedIn: Bool,
        hasher: any PasswordHashing
    ) async throws -> SignedIn {
        let address = "\(container)|\(email.lowercased())"
        let account = try await checkPassword(
            password, address: address, hasher: hasher,
            lookUp: { writer in try await writer.userAccount(container: container, email: email) },
            hash: \.passwordHash)
        return try await startSession(container: container, userRecordName: account.user.userRecordName, keepSignedIn: keepSignedIn)
    }

    /// A new session, and its first web auth token, for a user.
    public func startSession(container: String, userRecordName: String, keepSignedIn: Bool) async throws -> SignedIn {
        let token = Engine.randomWebAuthToken()
        let lifetime = SessionLifetime.milliseconds(keepSignedIn: keepSignedIn)
        let expires = nowMilliseconds() + lifetime
        try await storage.write { writer in
            try await writer.addWebSession(
                digest: secretDigest(token), container: container, userRecordName: userRecordName,
                expiresMilliseconds: expires, lifetimeMilliseconds: lifetime)
        }
        return SignedIn(userRecordName: userRecordName, webAuthToken: token, expiresMilliseconds: expires)
    }

    /// Ends the session of a web auth token: every token of it stops working. Returns whether it was valid.
    public func signOut(container: String, webAuthToken: String) async throws -> Bool {
        let digest = secretDigest(SessionTokenText(webAuthToken).secret)
        let removed = try await storage.write { writer in
            guard try await writer.webSession(digest: digest, container: container) != nil else { return false }
            return try await writer.removeWebSession(digest: digest)
        }
        await forgetCachedCredentials()
        return removed
    }

    /// An address with one `@` and a dot in its domain; the reason says what is wrong.
    public static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.count <= 254, !email.contains(" ") else {
            throw CloudKitError.badRequest("'\(email.prefix(80))' is not an email address such as ann@example.com")
        }
    }

    /// 8 to 72 characters (bcrypt reads 72 bytes at most).
    public static func validatePassword(_ password: String) throws {
        guard password.count >= 8, password.utf8.count <= 72 else {
            throw CloudKitError.badRequest("a password needs 8 to 72 characters")
        }
    }
}

extension Engine {
    /// Signs in the user an identity provider vouched for (`issuer|subject`), creating the account
    /// on first sign-in with the token's email address and name.
    public func signInWithIdentity(
        container: String, issuer: String, subject: String, email: String?, name: String?,
        keepSignedIn: Bool
    ) async throws -> SignedIn {
        let identity = "\(issuer)|\(subject)"
        let existing = try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.userAccount(container: container, identitySubject: identity)
        }
        let userRecordName: String
        if let existing {
            userRecordName = existing.user.userRecordName
        } else {
            // An address already used by another account is not taken over: the new account goes without it.
            let taken = try await storage.read { reader in try await reader.userAccount(container: container, email: email ?? "") } != nil
            let created = try await createUser(
                name: name ?? email ?? "user", container: container,
                options: NewUserOptions(email: taken ? "" : (email ?? ""), identitySubject: identity))
            _ = try await storage.write { writer in try await writer.removeWebSession(digest: secretDigest(created.webAuthToken)) }
            userRecordName = created.userRecordName
        }
        return try await startSession(container: container, userRecordName: userRecordName, keepSignedIn: keepSignedIn)
    }
}

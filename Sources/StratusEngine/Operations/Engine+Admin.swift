import Crypto
import Foundation
import StratusModel

/// Credentials handed out once: the store keeps only their digests.
public struct CreatedUser: Sendable {
    public var userRecordName: String
    public var webAuthToken: String
}

extension Engine {
    /// Creates a container (both environments) and returns its first API token.
    public func createContainer(_ identifier: String) async throws -> String {
        try checkContainerIdentifier(identifier)
        let token = Engine.randomHex(bytes: 32)
        let developer = "_" + Engine.randomHex(bytes: 16)
        try await storage.write { writer in
            if try await writer.container(identifier) != nil {
                throw CloudKitError(.exists, "container '\(identifier)' already exists; use `stratus token create --container \(identifier)` for another token")
            }
            try await writer.createContainer(ContainerRow(identifier: identifier, developerRecordName: developer))
            try await writer.addAPIToken(digest: secretDigest(token), container: identifier)
        }
        logger.info("created container \(identifier)")
        return token
    }

    /// A new API token for an existing container: 64 lowercase hex characters.
    public func createAPIToken(container: String) async throws -> String {
        let token = Engine.randomHex(bytes: 32)
        try await storage.write { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            try await writer.addAPIToken(digest: secretDigest(token), container: container)
        }
        return token
    }

    /// A new user of a container with a web auth token that signs them in.
    public func createUser(name: String, container: String) async throws -> CreatedUser {
        let user = CreatedUser(userRecordName: "_" + Engine.randomHex(bytes: 16), webAuthToken: Engine.randomWebAuthToken())
        try await storage.write { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            try await writer.addUser(UserRow(container: container, userRecordName: user.userRecordName, name: name),
                                     webAuthTokenDigest: secretDigest(user.webAuthToken))
        }
        return user
    }

    /// Resolves who is calling: the API token must belong to the container; a web auth token,
    /// when present, must sign in one of its users. Private and shared databases need a user.
    public func authenticate(container: String, environment: DatabaseEnvironment, scope: DatabaseScope,
                             apiToken: String?, webAuthToken: String?,
                             signInURL: @autoclosure () -> String) async throws -> RequestScope {
        guard let apiToken, !apiToken.isEmpty else {
            throw CloudKitError(.authenticationFailed, "missing ckAPIToken query parameter; create one with `stratus token create --container \(container)`")
        }
        let tokenDigest = secretDigest(apiToken)
        let webDigest = webAuthToken.map(secretDigest)
        let webKey = webDigest.map { "\(container)|\($0)" }
        var containerRow = apiTokenCache.value(for: tokenDigest).flatMap { $0.identifier == container ? $0 : nil }
        var tokenContainer = containerRow?.identifier
        var user = webKey.flatMap { webAuthCache.value(for: $0) }
        if containerRow == nil || (webKey != nil && user == nil) {
            (containerRow, tokenContainer, user) = try await storage.read { reader in
                let containerRow = try await reader.container(container)
                let tokenContainer = try await reader.containerForAPIToken(digest: tokenDigest)
                let user: UserRow? = if let webDigest { try await reader.userForWebAuthToken(digest: webDigest, container: container) } else { nil }
                return (containerRow, tokenContainer, user)
            }
            if let containerRow, tokenContainer == container { apiTokenCache.store(containerRow, for: tokenDigest) }
            if let user, let webKey { webAuthCache.store(user, for: webKey) }
        }
        guard let containerRow else { throw Engine.unknownContainer(container) }
        guard tokenContainer == container else {
            throw CloudKitError(.authenticationFailed, "ckAPIToken is not valid for container '\(container)'")
        }
        if webAuthToken != nil, user == nil {
            var error = CloudKitError(.authenticationRequired, "ckWebAuthToken is not valid or has expired; sign in again")
            error.redirectURL = signInURL()
            throw error
        }
        if scope != .public, user == nil {
            var error = CloudKitError(.authenticationRequired, "the \(scope.rawValue) database needs a signed-in user: add ckWebAuthToken")
            error.redirectURL = signInURL()
            throw error
        }
        let caller = Caller(userRecordName: user?.userRecordName, developerRecordName: containerRow.developerRecordName)
        let store = StoreKey(container: container, environment: environment, scope: scope, owner: user?.userRecordName ?? "")
        return RequestScope(store: store, caller: caller)
    }

    static func unknownContainer(_ identifier: String) -> CloudKitError {
        CloudKitError(.notFound, "container '\(identifier)' does not exist; create it with `stratus container create \(identifier)`")
    }

    func checkContainerIdentifier(_ identifier: String) throws {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard !identifier.isEmpty, identifier.count <= 255, identifier.unicodeScalars.allSatisfy(allowed.contains) else {
            throw CloudKitError.badRequest("container identifier '\(identifier.prefix(80))' may use letters, digits, '.', '-' and '_' only (for example iCloud.com.example.App)")
        }
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hexString((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Web auth tokens carry `+ / =` like Apple's, so clients exercise their URL encoding.
    static func randomWebAuthToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "stratus__1__" + Data(bytes).base64EncodedString()
    }
}

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

extension Engine {
    /// Runs one read against the storage: throws when the database does not answer (`GET /ready`).
    public func checkStorage() async throws {
        _ = try await storage.read { reader in try await reader.container("") }
    }
}

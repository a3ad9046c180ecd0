import Foundation

/// Where the SDK keeps each user's encrypted-values key (32 random bytes). The server never
/// sees it: values in `record.encryptedValues` are encrypted with it before they are sent.
/// Supply another store (the keychain on Apple platforms, a secrets manager) through
/// ``StratusConfiguration/encryptionKeyStore``.
public protocol StratusKeyStore: Sendable {
    /// The key stored under `name`, or `nil` when there is none.
    func key(named name: String) throws -> Data?
    /// Stores `key` under `name`, replacing any key stored there.
    func store(_ key: Data, named name: String) throws
}

/// Keeps keys as files (`<name>.key`, base64, readable only by the owner) in a folder. To read a
/// user's encrypted values on a second device, copy the user's key file to the same place there
/// before that device saves encrypted values (see docs/stratuskit-api.md).
public struct StratusFileKeyStore: StratusKeyStore {
    public let folder: URL

    public init(folder: URL = StratusFileKeyStore.defaultFolder) { self.folder = folder }

    /// `StratusKitKeys` in the user's application support folder (the home folder if there is none).
    public static var defaultFolder: URL {
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser
        return support.appendingPathComponent("StratusKitKeys")
    }

    public func key(named name: String) throws -> Data? {
        guard let text = try? String(contentsOf: file(name), encoding: .utf8) else { return nil }
        guard let key = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count == 32 else {
            throw CKError(.internalError, "the key file \(file(name).path) is not a 32-byte base64 key")
        }
        return key
    }

    public func store(_ key: Data, named name: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = file(name).path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(key.base64EncodedString().utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw CKError(.internalError, "could not write the key file \(path)")
        }
    }

    /// One file per name; characters a file name cannot hold are replaced.
    func file(_ name: String) -> URL {
        let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return folder.appendingPathComponent(safe + ".key")
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder a Stratus server keeps its state in: the database file and the secret that signs
/// continuation markers (so markers stay valid across restarts).
public struct DataFolder: Sendable {
    /// Absolute path of the folder.
    public let path: String

    /// Name of the file holding the 32-byte marker secret.
    public static let secretFileName = "secret.key"
    /// Name of the embedded database file.
    public static let databaseFileName = "stratus.sqlite"

    public init(path: String) {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        self.path = url.standardizedFileURL.path
    }

    /// Path of a file inside the folder.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The embedded database's path.
    public var databasePath: String { file(DataFolder.databaseFileName) }

    /// Where the file-system blob store keeps asset bytes.
    public var blobsFolder: URL { URL(fileURLWithPath: file("blobs")) }

    /// Where uploads are written while they arrive; on the same file system as the blobs, so a
    /// finished upload becomes a blob by rename.
    public var spoolFolder: URL { blobsFolder.appendingPathComponent("incoming") }

    /// Whether the database has not been created yet: the first start of this folder.
    public var isFresh: Bool { !FileManager.default.fileExists(atPath: databasePath) }

    /// Creates the folder (and its parents) when missing.
    public func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw DataFolderError("cannot create the data folder \(path): \(error.localizedDescription); pick another with --data or STRATUS_DATA")
        }
    }

    /// The marker secret, created (32 random bytes, mode 0600) on first use. Two processes
    /// starting at once agree on one secret: creation is exclusive, the loser reads the winner's.
    public func loadOrCreateSecret() throws -> [UInt8] {
        let secretPath = file(DataFolder.secretFileName)
        for _ in 0..<50 {
            if let existing = FileManager.default.contents(atPath: secretPath), existing.count == 32 {
                return Array(existing)
            }
            let descriptor = open(secretPath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            if descriptor >= 0 {
                var generator = SystemRandomNumberGenerator()
                let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let written = secret.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                fsync(descriptor)
                close(descriptor)
                guard written == 32 else {
                    throw DataFolderError("cannot write \(secretPath); check that the data folder is writable")
                }
                return secret
            }
            if errno != EEXIST {
                throw DataFolderError("cannot create \(secretPath): \(String(cString: strerror(errno))); check that the data folder is writable")
            }
            // Another process is writing it right now: wait for the 32 bytes to land.
            usleep(20_000)
        }
        throw DataFolderError("\(secretPath) exists but does not hold a 32-byte secret; delete it (continuation markers handed out earlier stop working) and start again")
    }
}

/// A data folder problem, with what to do about it.
public struct DataFolderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

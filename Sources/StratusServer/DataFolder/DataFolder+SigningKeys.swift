import Foundation
import StratusEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// With SQLite the signing keys live in the data folder: `secret.key` (32 raw bytes) signs,
/// `secret.previous` (one `HEX UNTIL` line per retired secret) lists those that still verify.
extension DataFolder: SigningKeySource {
    /// Name of the file listing retired secrets that still verify.
    public static let previousSecretsFileName = "secret.previous"

    public func loadSigningKeys() throws -> SigningKeys {
        let current = try loadOrCreateSecret()
        let path = file(DataFolder.previousSecretsFileName)
        guard let data = FileManager.default.contents(atPath: path) else { return SigningKeys(current: current) }
        guard let previous = SigningKeys.parsePrevious(String(decoding: data, as: UTF8.self)) else {
            throw DataFolderError("\(path) is damaged; delete it (tokens signed before the last rotation stop working) and start again")
        }
        return SigningKeys(current: current, previous: previous)
    }

    /// Makes a new current secret; the old one verifies for `overlap` more milliseconds. The
    /// retired list is written before the new secret replaces the old (both by rename), so a
    /// crash in between leaves the old secret current and nothing lost. Servers on this folder
    /// reread the files within seconds.
    public func rotateSecret(overlap: Int64) throws -> SigningKeys {
        try withLock {
            let rotated = try loadSigningKeys().rotated(to: SigningKeys.randomSecret(), now: nowMilliseconds(), overlap: overlap)
            try replace(DataFolder.previousSecretsFileName, with: Array(rotated.previousText.utf8))
            try replace(DataFolder.secretFileName, with: rotated.current)
            return rotated
        }
    }

    /// Runs `body` holding an exclusive lock on `secret.lock`, so two rotations do not interleave.
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        let path = file("secret.lock")
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else {
            throw DataFolderError("cannot open \(path): \(String(cString: strerror(errno))); check that the data folder is writable")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw DataFolderError("cannot lock \(path): \(String(cString: strerror(errno)))")
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Writes `bytes` to `name` atomically (a mode-0600 temporary file, fsynced, renamed over it).
    private func replace(_ name: String, with bytes: [UInt8]) throws {
        let target = file(name), temporary = file(name + ".new")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw DataFolderError("cannot write \(temporary): \(String(cString: strerror(errno))); check that the data folder is writable")
        }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, target) == 0 else {
            throw DataFolderError("cannot write \(target): \(String(cString: strerror(errno))); check that the data folder is writable")
        }
    }
}

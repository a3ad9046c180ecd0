import Crypto
import Foundation
import Hummingbird
import StratusEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an upload's bytes to a file in the incoming folder as they arrive, hashing them on the
/// way, so memory holds one chunk at a time whatever the file's size. The file only becomes a
/// blob when the blob store takes it; a file left here by a crash is never visible as an asset
/// (`BlobCollector` removes stale ones).
struct UploadSpool: Sendable {
    let folder: URL

    struct Spooled: Sendable {
        let file: URL
        let checksum: String
        let size: Int64
    }

    /// Reads `body` to a new file; more than `maximumBytes` is a BAD_REQUEST and leaves nothing.
    func receive(_ body: RequestBody, maximumBytes: Int64) async throws -> Spooled {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(UUID().uuidString.lowercased() + ".part")
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            if DiskFull.isCause(errno) { throw DiskFull.uploadError }
            throw BlobStoreError("cannot create \(file.path): \(String(cString: strerror(errno))); check that the data folder is writable")
        }
        var finished = false
        defer {
            close(descriptor)
            if !finished { unlink(file.path) }
        }
        var hasher = SHA256()
        var size: Int64 = 0
        for try await chunk in body {
            size += Int64(chunk.readableBytes)
            if size > maximumBytes {
                throw CloudKitError.badRequest(
                    "the file is larger than \(maximumBytes) bytes (\(maximumBytes / (1024 * 1024)) MB), the largest asset this server accepts — store a smaller file or raise the server's maximum asset size"
                )
            }
            try chunk.withUnsafeReadableBytes { bytes in
                hasher.update(bufferPointer: bytes)
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        if DiskFull.isCause(errno) { throw DiskFull.uploadError }
                        throw BlobStoreError("cannot write the upload to \(file.path): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
        // On disk before it can be named by its checksum: a power loss must not leave a short
        // file under a name that promises other bytes.
        guard fsync(descriptor) == 0 else {
            if DiskFull.isCause(errno) { throw DiskFull.uploadError }
            throw BlobStoreError("cannot flush the upload to \(file.path): \(String(cString: strerror(errno)))")
        }
        finished = true
        return Spooled(file: file, checksum: hexString(hasher.finalize()), size: size)
    }

    /// Removes spool files older than `age` seconds: uploads a crashed or killed server never finished.
    func removeAbandoned(olderThan age: Double) {
        let cutoff = Date().addingTimeInterval(-age)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasSuffix(".part") {
            let path = folder.appendingPathComponent(name).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
            if modified < cutoff { unlink(path) }
        }
    }
}

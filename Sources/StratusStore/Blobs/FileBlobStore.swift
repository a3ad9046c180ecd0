import Foundation
import StratusEngine
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blobs as files in a folder: `ROOT/sha256/ab/abcdef…` (the first two hex digits spread files
/// over 256 folders). A blob appears by `rename` of a finished, fsynced file, so it is either
/// there whole or not at all; the incoming file must be on the same file system (the server
/// spools uploads under the data folder for this reason).
public struct FileBlobStore: BlobStore {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    func path(_ checksum: String) throws -> String {
        guard checksum.count == 64, checksum.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw BlobStoreError("'\(checksum)' is not a lowercase hex SHA-256")
        }
        return root.appendingPathComponent("sha256").appendingPathComponent(String(checksum.prefix(2)))
            .appendingPathComponent(checksum).path
    }

    public func put(checksum: String, size: Int64, file: URL) async throws {
        let destination = try path(checksum)
        if FileManager.default.fileExists(atPath: destination) {
            // The same bytes are already stored: keep one copy.
            try? FileManager.default.removeItem(at: file)
            return
        }
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        guard rename(file.path, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: file)
            throw BlobStoreError("cannot move the upload into \(destination): \(reason); check that the data folder is writable and on one file system")
        }
    }

    public func contains(checksum: String) async throws -> Bool {
        FileManager.default.fileExists(atPath: try path(checksum))
    }

    public func open(checksum: String, range: Range<Int64>) async throws -> (any BlobReader)? {
        let descriptor = openForReading(try path(checksum))
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw BlobStoreError("cannot open blob \(checksum): \(String(cString: strerror(errno)))")
        }
        return FileBlobReader(descriptor: descriptor, range: range)
    }

    public func delete(checksum: String) async throws {
        let target = try path(checksum)
        if unlink(target) != 0, errno != ENOENT {
            throw BlobStoreError("cannot delete blob \(target): \(String(cString: strerror(errno)))")
        }
    }
}

/// Reads a range of an open blob file in 256 KB chunks.
final class FileBlobReader: BlobReader {
    struct State {
        var descriptor: Int32
        var offset: Int64
        let end: Int64
    }
    let state: Mutex<State>
    static let chunkSize: Int64 = 256 * 1024

    init(descriptor: Int32, range: Range<Int64>) {
        state = Mutex(State(descriptor: descriptor, offset: range.lowerBound, end: range.upperBound))
    }

    func next() async throws -> [UInt8]? {
        try state.withLock { state throws(BlobStoreError) -> [UInt8]? in
            guard state.descriptor >= 0 else { return nil }
            let wanted = Int(min(FileBlobReader.chunkSize, state.end - state.offset))
            if wanted <= 0 {
                closeDescriptor(state.descriptor)
                state.descriptor = -1
                return nil
            }
            let descriptor = state.descriptor
            let offset = state.offset
            let chunk = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
                let read = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
                count = max(read, 0)
            }
            if chunk.isEmpty {
                throw BlobStoreError("blob file ended early at byte \(offset); it was changed on disk")
            }
            state.offset += Int64(chunk.count)
            return chunk
        }
    }

    func close() async {
        state.withLock { state in
            if state.descriptor >= 0 { closeDescriptor(state.descriptor) }
            state.descriptor = -1
        }
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { closeDescriptor(state.descriptor) }
        }
    }
}

// Free functions: inside the types, `open` and `close` name the protocol methods.
private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY) }
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

import Crypto
import Foundation
import StratusEngine

/// The POSIX ustar format, as much of it as a backup needs: regular files with names of up to
/// 100 bytes, each followed by padding to 512 bytes, and two zero blocks at the end. Archives
/// written here open with `tar`, so an operator can look inside a backup without Stratus.
enum TarFormat {
    static let blockSize = 512

    /// A header block for a regular file.
    static func header(name: String, size: Int64, modified: Date = Date()) throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 100 else { throw BackupError("the archive entry name '\(name)' is longer than 100 bytes") }
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int) { for (index, byte) in text.utf8.enumerated() { block[offset + index] = byte } }
        func octal(_ value: Int64, width: Int) -> String {
            let digits = String(value, radix: 8)
            return String(repeating: "0", count: width - 1 - digits.count) + digits
        }
        block.replaceSubrange(0..<nameBytes.count, with: nameBytes)
        put(octal(0o600, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(Int64(modified.timeIntervalSince1970), width: 12), at: 136)
        put("        ", at: 148)          // the checksum field counts as spaces while summing
        block[156] = UInt8(ascii: "0")      // regular file
        put("ustar\u{0}00", at: 257)
        let sum = block.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7), at: 148)
        block[155] = UInt8(ascii: " ")
        return block
    }

    /// The name and size in a header block; nil for the zero block that ends an archive.
    static func parse(header block: [UInt8]) throws -> (name: String, size: Int64)? {
        guard block.count == blockSize else { throw BackupError("the archive ends in the middle of a header") }
        if block.allSatisfy({ $0 == 0 }) { return nil }
        guard Array(block[257..<262]) == Array("ustar".utf8) else { throw BackupError("this is not a Stratus backup (no tar header where one belongs)") }
        let name = String(decoding: block[0..<100].prefix { $0 != 0 }, as: UTF8.self)
        let sizeText = String(decoding: block[124..<136].prefix { $0 != 0 && $0 != 0x20 }, as: UTF8.self)
        guard let size = Int64(sizeText, radix: 8) else { throw BackupError("the archive entry '\(name)' has no readable size") }
        return (name, size)
    }

    static func padding(after size: Int64) -> Int {
        let remainder = Int(size % Int64(blockSize))
        return remainder == 0 ? 0 : blockSize - remainder
    }
}

/// Writes a tar archive to a file, hashing every byte (the archive's checksum) and each entry
/// (the manifest's), and reporting bytes written as it goes.
final class TarWriter {
    private let handle: FileHandle
    private var archiveHash = SHA256()
    private(set) var bytesWritten: Int64 = 0
    var onProgress: (Int64) -> Void = { _ in }
    /// Bytes per second to stay under (0: no limit), so a backup does not starve the server's disk.
    var bytesPerSecond: Int64 = 0
    private let started = ContinuousClock.now

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BackupError("cannot create \(path); check that its folder exists and is writable")
        }
        self.handle = handle
    }

    /// Adds the file at `source` as `name`; returns its size and SHA-256.
    func add(name: String, file source: String) throws -> (size: Int64, sha256: String) {
        guard let input = FileHandle(forReadingAtPath: source) else { throw BackupError("cannot read \(source)") }
        defer { try? input.close() }
        let size = Int64((try FileManager.default.attributesOfItem(atPath: source)[.size] as? NSNumber)?.int64Value ?? 0)
        try write(try TarFormat.header(name: name, size: size))
        var entryHash = SHA256()
        var copied: Int64 = 0
        while copied < size, let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            let bytes = Array(chunk.prefix(Int(size - copied)))
            entryHash.update(data: bytes)
            try write(bytes)
            copied += Int64(bytes.count)
        }
        guard copied == size else { throw BackupError("\(source) shrank while it was copied") }
        try write([UInt8](repeating: 0, count: TarFormat.padding(after: size)))
        return (size, hexString(entryHash.finalize()))
    }

    /// Adds `bytes` as `name`; returns their SHA-256.
    func add(name: String, bytes: [UInt8]) throws -> String {
        try write(try TarFormat.header(name: name, size: Int64(bytes.count)))
        try write(bytes)
        try write([UInt8](repeating: 0, count: TarFormat.padding(after: Int64(bytes.count))))
        return hexString(SHA256.hash(data: bytes))
    }

    /// Ends the archive, flushes it to disk and returns its SHA-256.
    func finish() throws -> String {
        try write([UInt8](repeating: 0, count: TarFormat.blockSize * 2))
        try handle.synchronize()
        try handle.close()
        return hexString(archiveHash.finalize())
    }

    private func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        archiveHash.update(data: bytes)
        try handle.write(contentsOf: bytes)
        bytesWritten += Int64(bytes.count)
        onProgress(bytesWritten)
        if bytesPerSecond > 0 {
            let due = Duration.seconds(Double(bytesWritten) / Double(bytesPerSecond))
            let elapsed = ContinuousClock.now - started
            if due > elapsed {
                let ahead = due - elapsed
                Thread.sleep(forTimeInterval: Double(ahead.components.seconds) + Double(ahead.components.attoseconds) / 1e18)
            }
        }
    }
}

/// Reads a tar archive entry by entry, hashing each entry's bytes.
final class TarReader {
    private let handle: FileHandle

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BackupError("cannot read \(path)") }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// Calls `body` with each entry's name and a sink: `body` returns where to write the entry's
    /// bytes (nil skips them). Returns each entry's name, size and SHA-256 in archive order.
    func extract(into destination: (String) throws -> String?) throws -> [(name: String, size: Int64, sha256: String)] {
        var entries: [(name: String, size: Int64, sha256: String)] = []
        while true {
            let block = Array(try handle.read(upToCount: TarFormat.blockSize) ?? Data())
            guard let (name, size) = try TarFormat.parse(header: block) else { return entries }
            let target = try destination(name)
            let output: FileHandle?
            if let target {
                guard FileManager.default.createFile(atPath: target, contents: nil), let opened = FileHandle(forWritingAtPath: target) else {
                    throw BackupError("cannot create \(target)")
                }
                output = opened
            } else {
                output = nil
            }
            var hash = SHA256()
            var remaining = size
            while remaining > 0 {
                let chunk = try handle.read(upToCount: Int(min(remaining, 1 << 20))) ?? Data()
                guard !chunk.isEmpty else { throw BackupError("the archive ends in the middle of '\(name)'; the backup is incomplete") }
                hash.update(data: chunk)
                try output?.write(contentsOf: chunk)
                remaining -= Int64(chunk.count)
            }
            if let output {
                try output.synchronize()
                try output.close()
            }
            _ = try handle.read(upToCount: TarFormat.padding(after: size))
            entries.append((name, size, hexString(hash.finalize())))
        }
    }
}

/// A backup or restore problem, with what to do about it.
struct BackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

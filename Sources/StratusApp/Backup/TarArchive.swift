import Crypto
import Foundation
import StratusEngine

/// The POSIX ustar format, as much of it as a backup needs: regular files with names of up to
/// 100 bytes, each followed by padding to 512 bytes, and two zero blocks at the end. Archives
/// written here open with `tar`, so an operator can look inside a backup without Stratus.
///
/// A ustar size field holds 11 octal digits, so files of 8 GiB or more get their size from a
/// POSIX pax extended header (`size=`) written before them, and the size field itself holds the
/// size in GNU tar's base-256 form for readers that ignore pax. Both are read.
enum TarFormat {
    static let blockSize = 512
    /// The largest size the 11 octal digits of a ustar size field hold: 8 GiB less one byte.
    static let largestOctalSize: Int64 = 0o77777777777

    /// A header block for a regular file, preceded by a pax extended header when the size does
    /// not fit the ustar field.
    static func header(name: String, size: Int64, modified: Date = Date()) throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 100 else { throw BackupError("the archive entry name '\(name)' is longer than 100 bytes") }
        guard size > largestOctalSize else { return block(name: nameBytes, size: size, type: "0", modified: modified) }
        let records = paxRecord("size", "\(size)")
        let paxName = Array("PaxHeaders/\(name)".utf8.prefix(100))
        return block(name: paxName, size: Int64(records.count), type: "x", modified: modified)
            + records + [UInt8](repeating: 0, count: padding(after: Int64(records.count)))
            + block(name: nameBytes, size: size, type: "0", modified: modified)
    }

    /// One header block; a size too large for octal digits is written in base-256.
    private static func block(name: [UInt8], size: Int64, type: Character, modified: Date) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int) { for (index, byte) in text.utf8.enumerated() { block[offset + index] = byte } }
        func octal(_ value: Int64, width: Int) -> String {
            let digits = String(value, radix: 8)
            return String(repeating: "0", count: width - 1 - digits.count) + digits
        }
        block.replaceSubrange(0..<name.count, with: name)
        put(octal(0o600, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        if size <= largestOctalSize {
            put(octal(size, width: 12), at: 124)
        } else {
            // GNU base-256: the first byte's high bit set, the value big-endian in the other 11.
            block[124] = 0x80
            for index in 0..<8 { block[135 - index] = UInt8(truncatingIfNeeded: size >> (8 * index)) }
        }
        put(octal(Int64(modified.timeIntervalSince1970), width: 12), at: 136)
        put("        ", at: 148) // the checksum field counts as spaces while summing
        block[156] = type.asciiValue!
        put("ustar\u{0}00", at: 257)
        let sum = block.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7), at: 148)
        block[155] = UInt8(ascii: " ")
        return block
    }

    /// A pax record: "LENGTH KEY=VALUE\n", where LENGTH counts the whole record, itself included.
    static func paxRecord(_ key: String, _ value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n"
        var length = body.utf8.count + 1
        while "\(length)".utf8.count + body.utf8.count != length { length = "\(length)".utf8.count + body.utf8.count }
        return Array("\(length)\(body)".utf8)
    }

    /// The `size` of a pax extended header's records, when it has one.
    static func paxSize(_ records: [UInt8]) throws -> Int64? {
        var size: Int64?
        var rest = records[...]
        while let space = rest.firstIndex(of: UInt8(ascii: " ")) {
            guard let length = Int(String(decoding: rest[rest.startIndex..<space], as: UTF8.self)), length > 0,
                rest.startIndex + length <= rest.endIndex
            else {
                throw BackupError("the archive has a damaged pax extended header")
            }
            let record = String(decoding: rest[(space + 1)..<(rest.startIndex + length - 1)], as: UTF8.self)
            if record.hasPrefix("size=") {
                guard let value = Int64(record.dropFirst(5)) else { throw BackupError("the archive's pax header has an unreadable size '\(record)'") }
                size = value
            }
            rest = rest[(rest.startIndex + length)...]
        }
        return size
    }

    /// The name, size and type flag in a header block; nil for the zero block that ends an archive.
    static func parse(header block: [UInt8]) throws -> (name: String, size: Int64, type: UInt8)? {
        guard block.count == blockSize else { throw BackupError("the archive ends in the middle of a header") }
        if block.allSatisfy({ $0 == 0 }) { return nil }
        guard Array(block[257..<262]) == Array("ustar".utf8) else { throw BackupError("this is not a Stratus backup (no tar header where one belongs)") }
        let name = String(decoding: block[0..<100].prefix { $0 != 0 }, as: UTF8.self)
        let size: Int64
        if block[124] & 0x80 != 0 {
            // GNU base-256 (positive values only: a negative size is no file).
            guard block[124] == 0x80, block[125..<128].allSatisfy({ $0 == 0 }), block[128] & 0x80 == 0 else {
                throw BackupError("the archive entry '\(name)' has a size too large for any file")
            }
            size = block[128..<136].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        } else {
            let sizeText = String(decoding: block[124..<136].prefix { $0 != 0 && $0 != 0x20 }, as: UTF8.self)
            guard let octal = Int64(sizeText, radix: 8) else { throw BackupError("the archive entry '\(name)' has no readable size") }
            size = octal
        }
        return (name, size, block[156])
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
            let bytes = chunk.prefix(Int(size - copied))
            entryHash.update(data: bytes)
            // A run of zeros (a sparse file's holes) is skipped over, not written: the archive
            // keeps the hole, and the bytes read back as the zeros they are.
            if isAllZero(bytes) { try skip(bytes) } else { try write(Array(bytes)) }
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
        try advanced(by: bytes.count)
    }

    /// Moves past zeros without writing them (the next write, at the latest the end blocks of
    /// `finish`, gives the file its length).
    private func skip(_ zeros: Data) throws {
        archiveHash.update(data: zeros)
        try handle.seek(toOffset: UInt64(bytesWritten) + UInt64(zeros.count))
        try advanced(by: zeros.count)
    }

    private func advanced(by count: Int) throws {
        bytesWritten += Int64(count)
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
    /// Pax extended headers give the next entry its size; global ones are skipped.
    func extract(into destination: (String) throws -> String?) throws -> [(name: String, size: Int64, sha256: String)] {
        var entries: [(name: String, size: Int64, sha256: String)] = []
        var paxSize: Int64?
        while true {
            let block = Array(try handle.read(upToCount: TarFormat.blockSize) ?? Data())
            guard let (name, headerSize, type) = try TarFormat.parse(header: block) else { return entries }
            if type == UInt8(ascii: "x") || type == UInt8(ascii: "g") {
                guard headerSize <= 1 << 20 else { throw BackupError("the archive has a pax header of \(headerSize) bytes; the backup is damaged") }
                let records = Array(try handle.read(upToCount: Int(headerSize)) ?? Data())
                guard records.count == headerSize else { throw BackupError("the archive ends in the middle of a pax header; the backup is incomplete") }
                _ = try handle.read(upToCount: TarFormat.padding(after: headerSize))
                if type == UInt8(ascii: "x") { paxSize = try TarFormat.paxSize(records) }
                continue
            }
            let size = paxSize ?? headerSize
            paxSize = nil
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
                // Zeros are skipped over, so a sparse file comes back sparse; the truncate
                // below gives a file that ends in a hole its length.
                if let output {
                    if isAllZero(chunk) { try output.seek(toOffset: try output.offset() + UInt64(chunk.count)) } else { try output.write(contentsOf: chunk) }
                }
                remaining -= Int64(chunk.count)
            }
            if let output {
                try output.truncate(atOffset: UInt64(size))
                try output.synchronize()
                try output.close()
            }
            _ = try handle.read(upToCount: TarFormat.padding(after: size))
            entries.append((name, size, hexString(hash.finalize())))
        }
    }
}

/// Whether every byte is zero (memcmp against a zero page: the backup of a large sparse file
/// checks gigabytes).
func isAllZero(_ bytes: Data) -> Bool {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let length = min(zeroPage.count, raw.count - offset)
            let same = zeroPage.withUnsafeBytes { memcmp(raw.baseAddress! + offset, $0.baseAddress!, length) == 0 }
            guard same else { return false }
            offset += length
        }
        return true
    }
}

private let zeroPage = [UInt8](repeating: 0, count: 1 << 16)

/// A backup or restore problem, with what to do about it.
struct BackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

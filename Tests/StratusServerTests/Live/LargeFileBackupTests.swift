import Foundation
import StratusTestSupport
import Testing

/// `stratus backup` and `stratus restore` of a data folder holding a file past the 8 GiB a ustar
/// size field can hold. The file is sparse and the archive and the restored copy keep its holes,
/// so the test writes a few kilobytes to disk; it still reads and hashes the 9 GiB, so it runs with
/// the other large-file tests on their own (`STRATUS_LARGE_TESTS=1`, as `scripts/test` does).
@Suite(
    .enabled(if: !TestBackend.isPostgres, "backup copies a SQLite data folder"),
    .enabled(
        if: ProcessInfo.processInfo.environment["STRATUS_LARGE_TESTS"] == "1",
        "large-file tests run on their own: STRATUS_LARGE_TESTS=1 (scripts/test does this)"))
struct LargeFileBackupTests {
    static let size: Int64 = 9 << 30
    /// Bytes at the start, past the 8 GiB boundary, and at the very end.
    static let markers: [(offset: Int64, bytes: String)] = [(0, "head"), ((8 << 30) + 4096, "past 8 GiB"), (size - 4, "tail")]

    @Test func aNineGiBFileIsBackedUpAndRestoredByteForByte() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        #expect(server.terminate() == 0)
        let large = folder.data.appendingPathComponent("large.bin").path
        try Self.writeSparse(at: large)

        let archive = folder.root.appendingPathComponent("backup.tar").path
        let backup = try await StratusBinary.run(["backup", "--to", archive, "--data", folder.data.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try Self.allocatedBytes(archive) < 64 << 20, "the archive keeps the file's holes")

        // GNU tar reads the entry's size from the pax header as this code does.
        let tar = try ChildProcess("/usr/bin/tar", arguments: ["-tvf", archive])
        let listing = (stdout: await tar.stdout!.text(), status: await tar.termination.status)
        #expect(listing.status == 0)
        #expect(listing.stdout.split(separator: "\n").contains { $0.contains(" \(Self.size) ") && $0.hasSuffix("large.bin") }, "\(listing.stdout)")

        let restored = folder.root.appendingPathComponent("restored")
        let restore = try await StratusBinary.run(["restore", archive, "--data", restored.path])
        #expect(restore.status == 0, "every entry's SHA-256 matched the manifest: \(restore.stderr)")
        let copy = restored.appendingPathComponent("large.bin").path
        #expect((try FileManager.default.attributesOfItem(atPath: copy)[.size] as? NSNumber)?.int64Value == Self.size)
        let handle = try #require(FileHandle(forReadingAtPath: copy))
        defer { try? handle.close() }
        for (offset, bytes) in Self.markers {
            try handle.seek(toOffset: UInt64(offset))
            #expect(String(decoding: try handle.read(upToCount: bytes.utf8.count) ?? Data(), as: UTF8.self) == bytes)
        }
        #expect(try Self.allocatedBytes(copy) < 64 << 20, "the restored file is sparse too")
    }

    static func writeSparse(at path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
        for (offset, bytes) in markers {
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data(bytes.utf8))
        }
    }

    /// The disk space a file takes (its allocated blocks), not its length.
    static func allocatedBytes(_ path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return Int64(info.st_blocks) * 512
    }
}

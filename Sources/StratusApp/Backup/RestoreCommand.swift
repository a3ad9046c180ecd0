import ArgumentParser
import Crypto
import Foundation
import StratusEngine
import StratusServer
import StratusSQLite

/// `stratus restore FILE --data DIR [--force]`: unpacks a backup into a data folder. Everything
/// is checked before the folder is touched: the file against FILE.sha256 (or --sha256), every
/// entry against the manifest, and the database with SQLite's integrity check. Then the
/// unpacked folder takes the target's place in one rename.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore a backup made by `stratus backup` into a data folder.",
        discussion: "Stop any server using the folder first. A folder that is not empty is replaced only with --force.")

    @Argument(help: "The backup file.")
    var file: String
    @Option(help: ArgumentHelp("The data folder to restore into (env STRATUS_DATA).", valueName: "dir"))
    var data: String?
    @Option(help: ArgumentHelp("The backup's expected SHA-256 (default: read from FILE.sha256).", valueName: "hex"))
    var sha256: String?
    @Flag(help: "Replace the contents of a data folder that is not empty.")
    var force = false

    func run() async throws {
        try await reportingErrors {
            guard let path = data ?? ProcessInfo.processInfo.environment["STRATUS_DATA"] else {
                throw BackupError("name the folder to restore into with --data DIR")
            }
            try BackupRestore(archive: file, target: DataFolder(path: path), expectedChecksum: sha256, force: force).run()
        }
    }
}

struct BackupRestore {
    let archive: String
    let target: DataFolder
    let expectedChecksum: String?
    let force: Bool

    func run() throws {
        guard FileManager.default.fileExists(atPath: archive) else { throw BackupError("\(archive) does not exist") }
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: target.path)) ?? []
        if !existing.isEmpty && !force {
            throw BackupError("\(target.path) is not empty; restore into an empty or new folder, or add --force to replace what it holds (stop its server first)")
        }
        try verifyChecksum()
        let parent = (target.path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let staging = (parent as NSString).appendingPathComponent(".\((target.path as NSString).lastPathComponent).restoring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        var moved = false
        defer { if !moved { try? FileManager.default.removeItem(atPath: staging) } }
        let manifestPath = (staging as NSString).appendingPathComponent(".manifest.json")
        Console.error("restore: unpacking \(archive)")
        let found = try TarReader(path: archive).extract { name in
            if name == BackupManifest.entryName { return manifestPath }
            let path = try Self.safePath(name, under: staging)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            return path
        }
        guard let manifestBytes = FileManager.default.contents(atPath: manifestPath) else {
            throw BackupError("\(archive) has no manifest.json: it is not a complete Stratus backup")
        }
        try FileManager.default.removeItem(atPath: manifestPath)
        let manifest = try BackupManifest(parsing: Array(manifestBytes))
        let unpacked = found.filter { $0.name != BackupManifest.entryName }.map { BackupManifest.Entry(name: $0.name, size: $0.size, sha256: $0.sha256) }
        guard unpacked == manifest.entries else {
            let damaged = Set(unpacked.map(\.name)).symmetricDifference(manifest.entries.map(\.name)).sorted().prefix(3)
            let changed = zip(unpacked, manifest.entries).filter { $0 != $1 }.map(\.0.name).prefix(3)
            throw BackupError("\(archive) does not match its manifest (\((Array(damaged) + Array(changed)).joined(separator: ", "))): the backup is damaged")
        }
        try checkIntegrity(of: (staging as NSString).appendingPathComponent(DataFolder.databaseFileName))
        if FileManager.default.fileExists(atPath: target.path) {
            let replaced = (parent as NSString).appendingPathComponent(".\((target.path as NSString).lastPathComponent).replaced-\(UUID().uuidString)")
            try FileManager.default.moveItem(atPath: target.path, toPath: replaced)
            try FileManager.default.moveItem(atPath: staging, toPath: target.path)
            moved = true
            try? FileManager.default.removeItem(atPath: replaced)
        } else {
            try FileManager.default.moveItem(atPath: staging, toPath: target.path)
            moved = true
        }
        let blobs = manifest.entries.filter { $0.name.hasPrefix("blobs/") }.count
        Console.out("restored \(manifest.entries.count) entries (\(blobs) asset file(s)) into \(target.path); start it with `stratus serve --data \(target.path)`")
    }

    /// FILE.sha256 (as `backup` writes it, or `sha256sum` does) or --sha256 must match the file.
    private func verifyChecksum() throws {
        var expected = expectedChecksum
        if expected == nil, let line = try? String(contentsOfFile: archive + ".sha256", encoding: .utf8) {
            expected = line.split(separator: " ").first.map(String.init)
        }
        guard let expected else {
            Console.error("warning: no \(archive).sha256 and no --sha256; checking the entries against the manifest only")
            return
        }
        guard let input = FileHandle(forReadingAtPath: archive) else { throw BackupError("cannot read \(archive)") }
        defer { try? input.close() }
        var hash = SHA256()
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        let actual = hexString(hash.finalize())
        guard actual == expected.lowercased() else {
            throw BackupError("\(archive) has SHA-256 \(actual) but \(expected) was expected: the file is damaged or not that backup")
        }
        Console.error("restore: checksum verified (\(actual))")
    }

    private func checkIntegrity(of database: String) throws {
        let connection = try DirectConnection(path: database, readOnly: true, busyTimeoutMilliseconds: 10_000)
        defer { connection.close() }
        let result = try connection.run("PRAGMA integrity_check").compactMap { $0[0].text }
        guard result == ["ok"] else {
            throw BackupError("the backup's database fails SQLite's integrity check: \(result.prefix(3).joined(separator: "; "))")
        }
    }

    /// An entry's path inside `folder`; names that would leave it (absolute, `..`) are refused.
    static func safePath(_ name: String, under folder: String) throws -> String {
        let parts = name.split(separator: "/")
        guard !name.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." }) else {
            throw BackupError("the backup holds an entry named '\(name)', which would land outside the data folder; refusing it")
        }
        return (folder as NSString).appendingPathComponent(name)
    }
}

import ArgumentParser
import Foundation
import StratusEngine
import StratusModel
import StratusServer
import StratusSQLite

/// `stratus backup --to FILE`: a consistent copy of a data folder taken while the server keeps
/// serving. The database is copied with `VACUUM INTO`, which reads one snapshot (writers go on;
/// the copy holds every write committed before it started and none after), then the asset blobs
/// that snapshot lists, the signing secrets and the manifest, into one tar file. The file
/// appears only once complete (written as FILE.partial, then renamed), with its SHA-256 in
/// FILE.sha256.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Write a consistent backup of a data folder while the server runs.",
        discussion:
            "The backup is a tar file: the database, the asset files, the signing secrets and manifest.json with every entry's SHA-256. `stratus restore FILE --data DIR` brings it back. PostgreSQL deployments back up the database with pg_dump (see docs/operations.md)."
    )

    @Option(help: ArgumentHelp("The backup file to write (it must not exist).", valueName: "file"))
    var to: String
    @Option(help: ArgumentHelp("Copy at most this many megabytes per second, to spare the server's disk (default: no limit).", valueName: "n"))
    var maxMBPerSecond: Double?
    @OptionGroup var data: DataOption

    func run() async throws {
        try await reportingErrors {
            guard try data.databaseURL() == nil else {
                throw BackupError("stratus backup copies a SQLite data folder; back up a PostgreSQL database with pg_dump (see docs/operations.md)")
            }
            try SQLiteBackup(folder: data.folder, target: to, bytesPerSecond: Int64((maxMBPerSecond ?? 0) * 1_000_000)).run()
        }
    }
}

/// The steps of a SQLite data folder backup; see `BackupCommand`.
struct SQLiteBackup {
    let folder: DataFolder
    let target: String
    let bytesPerSecond: Int64

    /// Top-level files of the data folder that are not copied: the live database and its
    /// journals (the snapshot replaces them) and the lock file of the signing secret.
    static let skippedFiles: Set<String> = [
        DataFolder.databaseFileName, DataFolder.databaseFileName + "-wal", DataFolder.databaseFileName + "-shm",
        DataFolder.databaseFileName + "-journal", "secret.lock",
    ]

    func run() throws {
        guard FileManager.default.fileExists(atPath: folder.databasePath) else {
            throw BackupError("\(folder.databasePath) does not exist; name the server's data folder with --data")
        }
        guard !FileManager.default.fileExists(atPath: target) else {
            throw BackupError("\(target) already exists; pick a new file name (a backup never overwrites one)")
        }
        let partial = target + ".partial"
        let snapshot = target + ".snapshot.sqlite"
        try? FileManager.default.removeItem(atPath: partial)
        try? FileManager.default.removeItem(atPath: snapshot)
        defer {
            try? FileManager.default.removeItem(atPath: snapshot)
            try? FileManager.default.removeItem(atPath: partial)
        }
        let progress = BackupProgress()
        progress.say("backup: taking a snapshot of \(folder.databasePath)")
        let blobs = try takeSnapshot(into: snapshot)
        let writer = try TarWriter(path: partial)
        writer.bytesPerSecond = bytesPerSecond
        var entries: [BackupManifest.Entry] = []
        let (size, sha256) = try writer.add(name: DataFolder.databaseFileName, file: snapshot)
        entries.append(.init(name: DataFolder.databaseFileName, size: size, sha256: sha256))
        progress.say("backup: database snapshot copied (\(BackupProgress.megabytes(size)))")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where !Self.skippedFiles.contains(name) {
            var isFolder: ObjCBool = false
            let path = folder.file(name)
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let (size, sha256) = try writer.add(name: name, file: path)
            entries.append(.init(name: name, size: size, sha256: sha256))
        }
        var missing: [String] = []
        let total = blobs.reduce(0) { $0 + $1.size }
        var copied: Int64 = 0
        for (index, blob) in blobs.enumerated() {
            let name = "blobs/sha256/\(blob.checksum.prefix(2))/\(blob.checksum)"
            let path = folder.file(name)
            guard FileManager.default.fileExists(atPath: path) else {
                missing.append(blob.checksum)
                continue
            }
            let (size, sha256) = try writer.add(name: name, file: path)
            entries.append(.init(name: name, size: size, sha256: sha256))
            copied += size
            progress.blobs(done: index + 1, of: blobs.count, bytes: copied, totalBytes: total)
        }
        if !missing.isEmpty {
            Console.error("warning: \(missing.count) asset file(s) the database lists were not in \(folder.blobsFolder.path) (kept on S3, or removed by asset collection); the manifest names them")
        }
        let manifest = BackupManifest(backend: "sqlite", entries: entries, missingBlobs: missing)
        _ = try writer.add(name: BackupManifest.entryName, bytes: Array(manifest.json.serializedString.utf8))
        let checksum = try writer.finish()
        guard rename(partial, target) == 0 else {
            throw BackupError("cannot move \(partial) to \(target): \(String(cString: strerror(errno)))")
        }
        let checksumLine = "\(checksum)  \((target as NSString).lastPathComponent)\n"
        try Data(checksumLine.utf8).write(to: URL(fileURLWithPath: target + ".sha256"))
        Console.out("backup written to \(target): \(BackupProgress.megabytes(writer.bytesWritten)), \(entries.count) entries, \(blobs.count - missing.count) asset file(s)")
        Console.out("sha256 \(checksum) (also in \(target).sha256)")
    }

    /// `VACUUM INTO` on a connection of this process: one read transaction, so the copy is the
    /// database as of one commit while the server goes on writing. Returns the blobs it lists.
    private func takeSnapshot(into snapshot: String) throws -> [(checksum: String, size: Int64)] {
        let live = try DirectConnection(path: folder.databasePath, readOnly: false, busyTimeoutMilliseconds: 10_000)
        defer { live.close() }
        try live.run("VACUUM INTO ?", [.text(snapshot)])
        let copy = try DirectConnection(path: snapshot, readOnly: true, busyTimeoutMilliseconds: 10_000)
        defer { copy.close() }
        // Blobs marked for collection (touched_ms -1) count as gone, as they do for saves.
        return try copy.run("SELECT checksum, size FROM blobs WHERE touched_ms >= 0 ORDER BY checksum").compactMap { row in
            guard let checksum = row[0].text, let size = row[1].integer else { return nil }
            return (checksum, size)
        }
    }
}

/// Progress lines on stderr: one per step, and for blobs one per tenth of the bytes.
final class BackupProgress {
    private var lastTenth = -1

    func say(_ line: String) { Console.error(line) }

    func blobs(done: Int, of count: Int, bytes: Int64, totalBytes: Int64) {
        let tenth = totalBytes > 0 ? Int(bytes * 10 / totalBytes) : 10
        guard tenth != lastTenth || done == count else { return }
        lastTenth = tenth
        say("backup: asset files \(done)/\(count) (\(Self.megabytes(bytes)) of \(Self.megabytes(totalBytes)))")
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

import Foundation
import StratusEngine
import StratusModel
import StratusServer

/// The folder a user export writes: JSON-lines files opened as their first line arrives, asset
/// files copied from the blob store, and progress on stderr.
final class ExportFolder: @unchecked Sendable {
    // @unchecked: every member is used under `lock`.
    let root: URL
    private let lock = NSLock()
    private var files: [String: FileHandle] = [:]
    private var written = 0

    /// Creates the folder; an existing one must be empty, so an export never mixes with another.
    init(path: String) throws {
        root = URL(fileURLWithPath: path)
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw DataFolderError("\(path) is not empty; export into a new folder")
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Appends one line to its file, saying every few thousand lines how far the export got.
    func append(_ line: UserExportLine) throws {
        try lock.withLock {
            let handle = try files[line.file] ?? open(line.file)
            handle.write(Data((line.json + "\n").utf8))
            written += 1
            if written % 5000 == 0 { Console.error("export: \(written) lines written") }
        }
    }

    private func open(_ file: String) throws -> FileHandle {
        let url = root.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
            throw DataFolderError("cannot write \(url.path)")
        }
        files[file] = handle
        return handle
    }

    /// Copies each blob to `assets/CHECKSUM`, a chunk at a time. Returns the checksums the blob
    /// store no longer held (collected after the records were read).
    func copyAssets(_ assets: [String: Int64], from blobs: any BlobStore) async throws -> [String] {
        let folder = root.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var missing: [String] = []
        for (index, checksum) in assets.keys.sorted().enumerated() {
            let size = assets[checksum] ?? 0
            let path = folder.appendingPathComponent(checksum).path
            guard try await blobs.contains(checksum: checksum) else {
                missing.append(checksum)
                continue
            }
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            guard size > 0, let reader = try await blobs.open(checksum: checksum, range: 0..<size) else { continue }
            guard let handle = FileHandle(forWritingAtPath: path) else { throw DataFolderError("cannot write \(path)") }
            defer { try? handle.close() }
            while let chunk = try await reader.next() { handle.write(Data(chunk)) }
            await reader.close()
            Console.error("export: asset files \(index + 1)/\(assets.count)")
        }
        return missing
    }

    /// Writes `manifest.json` last: its presence says the export finished. Every file the
    /// manifest lists exists, empty when the user had nothing of its kind.
    func finish(account: UserAccount, summary: UserExportSummary, missingAssets: [String]) throws {
        try lock.withLock {
            for name in summary.lines.keys where files[name] == nil { _ = try open(name) }
            for handle in files.values { try handle.close() }
            files.removeAll()
        }
        let fileEntries = summary.lines.keys.sorted().map { name -> JSONValue in
            ["file": .string(name), "lines": .int(Int64(summary.lines[name] ?? 0))]
        }
        let assets = summary.assets.keys.sorted().map { checksum -> JSONValue in
            [
                "fileChecksum": .string(checksum), "size": .int(summary.assets[checksum] ?? 0),
                "file": missingAssets.contains(checksum) ? .null : .string("assets/\(checksum)"),
            ]
        }
        let manifest: JSONValue = [
            "container": .string(account.user.container), "userRecordName": .string(account.user.userRecordName),
            "name": .string(account.user.name), "email": account.email.isEmpty ? .null : .string(account.email),
            "exportedAt": .int(Int64(Date().timeIntervalSince1970 * 1000)),
            "files": .array(fileEntries), "assets": .array(assets),
        ]
        try Data((manifest.serializedString + "\n").utf8).write(to: root.appendingPathComponent("manifest.json"))
    }
}

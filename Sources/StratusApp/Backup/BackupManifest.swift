import Foundation
import StratusModel

/// `manifest.json`, the last entry of a backup: what the archive holds and each entry's size
/// and SHA-256, so a restore can tell a whole backup from a damaged or cut one.
struct BackupManifest {
    static let entryName = "manifest.json"
    static let format = "stratus-backup"

    struct Entry: Equatable {
        var name: String
        var size: Int64
        var sha256: String
    }

    var backend: String
    var created: Date
    var entries: [Entry]
    /// Blobs the database lists whose files were already gone when the backup copied blobs.
    var missingBlobs: [String]

    var json: JSONValue {
        .object([
            "format": .string(Self.format),
            "version": 1,
            "backend": .string(backend),
            "created": .string(created.formatted(.iso8601)),
            "entries": .array(entries.map { ["name": .string($0.name), "size": .int($0.size), "sha256": .string($0.sha256)] }),
            "missingBlobs": .array(missingBlobs.map { .string($0) }),
        ])
    }

    init(backend: String, created: Date = Date(), entries: [Entry], missingBlobs: [String]) {
        self.backend = backend
        self.created = created
        self.entries = entries
        self.missingBlobs = missingBlobs
    }

    init(parsing bytes: [UInt8]) throws {
        let json = try JSONValue.parse(bytes)
        guard json["format"]?.stringValue == Self.format, let backend = json["backend"]?.stringValue,
            let entries = json["entries"]?.arrayValue
        else {
            throw BackupError("the backup's manifest is not one Stratus wrote")
        }
        self.backend = backend
        self.created = Date()
        self.entries = try entries.map { entry in
            guard let name = entry["name"]?.stringValue, let size = entry["size"]?.int64Value, let sha256 = entry["sha256"]?.stringValue else {
                throw BackupError("the backup's manifest has an entry without name, size or sha256")
            }
            return Entry(name: name, size: size, sha256: sha256)
        }
        self.missingBlobs = json["missingBlobs"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

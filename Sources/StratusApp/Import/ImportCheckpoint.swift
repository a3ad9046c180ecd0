import Foundation
import StratusModel

/// Where an import has got to, written after each batch commits (to a new file, then renamed
/// over the old, so a kill leaves the previous one whole). A batch committed but not yet
/// recorded is read again on the next run and found unchanged, so resuming never duplicates.
struct ImportCheckpoint {
    struct CopiedAsset: Hashable {
        var checksum: String
        var size: Int64
    }

    /// What the checkpoint is for: the source and target it was made between.
    var identity: String
    /// Per record type: the continuation marker of the next page, absent before the first page.
    var markers: [String: String] = [:]
    /// Record types read to the end in this run.
    var finishedTypes: Set<String> = []
    /// Asset files already copied, by source checksum (kept across runs).
    var assets: [String: CopiedAsset] = [:]

    let path: String

    /// The checkpoint at `path` when it belongs to `identity`; otherwise a fresh one. A
    /// checkpoint of a run that finished starts a new pass, keeping only the asset map.
    static func load(path: String, identity: String) -> ImportCheckpoint {
        var fresh = ImportCheckpoint(identity: identity, path: path)
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSONValue.parse(data),
            json["identity"]?.stringValue == identity
        else { return fresh }
        for (checksum, copied) in json["assets"]?.objectValue ?? [:] {
            if let target = copied["checksum"]?.stringValue, let size = copied["size"]?.int64Value {
                fresh.assets[checksum] = CopiedAsset(checksum: target, size: size)
            }
        }
        guard json["finished"]?.boolValue != true else { return fresh }
        for (type, marker) in json["markers"]?.objectValue ?? [:] {
            if let marker = marker.stringValue { fresh.markers[type] = marker }
        }
        fresh.finishedTypes = Set((json["finishedTypes"]?.arrayValue ?? []).compactMap(\.stringValue))
        return fresh
    }

    var resumes: Bool { !markers.isEmpty || !finishedTypes.isEmpty }

    func save(finished: Bool = false) throws {
        let json: JSONValue = .object([
            "identity": .string(identity),
            "finished": .bool(finished),
            "markers": .object(markers.mapValues(JSONValue.string)),
            "finishedTypes": .array(finishedTypes.sorted().map(JSONValue.string)),
            "assets": .object(assets.mapValues { .object(["checksum": .string($0.checksum), "size": .int($0.size)]) }),
        ])
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = path + ".writing"
        try json.serializedData.write(to: URL(fileURLWithPath: temporary))
        // rename(2) replaces the old file in one step; FileManager's move refuses an existing target.
        guard rename(temporary, path) == 0 else {
            throw ImportError("cannot write the checkpoint \(path) (\(String(cString: strerror(errno)))); check the data folder's permissions")
        }
    }
}

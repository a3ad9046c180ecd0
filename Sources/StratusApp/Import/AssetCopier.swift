import Foundation
import StratusEngine
import StratusModel

/// Copies the files a source record's assets hold into the target's blob store, each once:
/// a file already copied (same source checksum, this run or an earlier one the checkpoint
/// remembers) is not downloaded again, and bytes the target already stores are not stored twice.
actor AssetCopier {
    let client: SourceClient
    let blobs: any BlobStore
    let spoolFolder: String
    /// Source `fileChecksum` → the target's checksum and size.
    private(set) var copied: [String: ImportCheckpoint.CopiedAsset]
    private(set) var downloadedBytes: Int64 = 0
    private(set) var downloadedFiles = 0

    init(client: SourceClient, blobs: any BlobStore, spoolFolder: String, copied: [String: ImportCheckpoint.CopiedAsset]) {
        self.client = client
        self.blobs = blobs
        self.spoolFolder = spoolFolder
        self.copied = copied
    }

    /// `source` with every asset value naming the target's copy of its file.
    func copyAssets(of source: SourceRecord) async throws -> ImportedRecord {
        var record = source.record
        for (field, urls) in source.downloads {
            guard let value = record.fields[field] else { continue }
            var index = 0
            var copiedValues: [AssetValue] = []
            for asset in value.assets {
                let url = index < urls.count ? urls[index] : nil
                index += 1
                copiedValues.append(try await copy(asset, url: url, record: record.recordName, field: field))
            }
            record.fields[field] = value.replacingAssets(copiedValues)
        }
        return record
    }

    private func copy(_ asset: AssetValue, url: String?, record: String, field: String) async throws -> AssetValue {
        if let key = asset.fileChecksum, let known = copied[key], try await blobs.contains(checksum: known.checksum) {
            return AssetValue(fileChecksum: known.checksum, size: known.size)
        }
        guard let url else {
            throw ImportError("the source sent record '\(record)' with an asset in field '\(field)' but no downloadURL; the import stopped before writing it")
        }
        let downloaded = try await client.download(url, into: spoolFolder)
        defer { try? FileManager.default.removeItem(at: downloaded.file) }
        if try await !blobs.contains(checksum: downloaded.checksum) {
            try await blobs.put(checksum: downloaded.checksum, size: downloaded.size, file: downloaded.file)
        }
        downloadedFiles += 1
        downloadedBytes += downloaded.size
        copied[asset.fileChecksum ?? downloaded.checksum] = ImportCheckpoint.CopiedAsset(checksum: downloaded.checksum, size: downloaded.size)
        return AssetValue(fileChecksum: downloaded.checksum, size: downloaded.size)
    }
}

extension FieldValue {
    /// The value with its assets, in order, replaced by `assets`.
    func replacingAssets(_ assets: [AssetValue]) -> FieldValue {
        switch self {
        case .asset: return assets.first.map(FieldValue.asset) ?? self
        case .list(let type, _) where type == .asset: return .list(.asset, assets.map(FieldValue.asset))
        default: return self
        }
    }
}

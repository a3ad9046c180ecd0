import Foundation
import StratusModel

extension CKDatabase {
    /// One local file to upload: the `index`-th asset of a record's field (0 for a single asset).
    struct PendingUpload: Sendable {
        let recordID: CKRecord.ID
        let recordType: String
        let field: String
        let index: Int
        let file: URL
    }

    /// Uploads every local file the records hold (docs/protocol.md §8: assets/upload, then POST the
    /// bytes), several at once, and answers per record the field values to send in their place —
    /// assets carrying the upload receipts — or the error that fails that record alone.
    func uploadAssets(of records: [CKRecord]) async throws(CKError) -> [CKRecord.ID: Result<[String: RecordFieldValue], CKError>] {
        var outcome: [CKRecord.ID: Result<[String: RecordFieldValue], CKError>] = [:]
        var pending: [PendingUpload] = []
        for record in records {
            var files: [PendingUpload] = []
            for (field, value) in record.fields where value.needsUpload {
                for (index, asset) in value.assetsInOrder.enumerated() where asset.wire == nil {
                    files.append(
                        PendingUpload(
                            recordID: record.recordID, recordType: record.recordType, field: field,
                            index: index, file: asset.fileURL ?? URL(fileURLWithPath: "/")))
                }
            }
            if let missing = files.first(where: { !FileManager.default.isReadableFile(atPath: $0.file.path) }) {
                outcome[record.recordID] = .failure(
                    CKError(
                        .assetFileNotFound,
                        "record '\(record.recordID.recordName)' field '\(missing.field)': no readable file at \(missing.file.path)"))
            } else {
                pending += files
            }
        }
        guard !pending.isEmpty else { return outcome }
        let urls = try await uploadURLs(for: pending)
        let uploaded = await transfer(Array(zip(pending, urls))) { client, item throws(CKError) in
            try await client.uploadFile(item.0.file, to: item.1)
        }
        var receipts: [CKRecord.ID: [String: [Int: AssetValue]]] = [:]
        for (item, result) in zip(pending, uploaded) {
            switch result {
            case .success(let asset): receipts[item.recordID, default: [:]][item.field, default: [:]][item.index] = asset
            case .failure(let error): outcome[item.recordID] = .failure(error)
            }
        }
        for record in records where outcome[record.recordID] == nil {
            var replaced: [String: RecordFieldValue] = [:]
            for (field, byIndex) in receipts[record.recordID] ?? [:] {
                guard let value = record.fields[field] else { continue }
                replaced[field] = value.replacingAssets { index, asset in
                    byIndex[index].map { CKAsset(wire: $0, fileURL: asset.fileURL) } ?? asset
                }
            }
            outcome[record.recordID] = .success(replaced)
        }
        return outcome
    }

    /// One upload URL per pending file, asked for per zone in batches of 200.
    func uploadURLs(for pending: [PendingUpload]) async throws(CKError) -> [URL] {
        var urls: [Int: URL] = [:]
        let numbered = Array(pending.enumerated())
        for (zone, items) in groupedByZone(numbered, zone: { $0.element.recordID.zoneID }) {
            for chunk in items.chunked(maximumItemsPerRequest) {
                let tokens: [JSONValue] = chunk.map { item in
                    .object([
                        "recordName": .string(item.element.recordID.recordName), "recordType": .string(item.element.recordType),
                        "fieldName": .string(item.element.field),
                    ])
                }
                let answer = try await request("assets/upload", body: .object(["zoneID": zone.wire.json, "tokens": .array(tokens)]))
                let granted = answer["tokens"]?.arrayValue ?? []
                for (position, item) in chunk.enumerated() {
                    guard position < granted.count, let text = granted[position]["url"]?.stringValue, let url = URL(string: text) else {
                        throw CKError(.serverResponseLost, "assets/upload returned fewer upload URLs than asked for")
                    }
                    urls[item.offset] = url
                }
            }
        }
        return pending.indices.map { urls[$0]! }
    }

    /// Gives each fetched asset a local file (the cache, downloading what it lacks). A record
    /// whose file cannot be had fails with `assetNotAvailable`. Fields left out by `desiredKeys`
    /// are not in the record, so nothing is downloaded for them.
    func withDownloadedAssets(_ fetched: [(CKRecord.ID, Result<CKRecord, any Error>)]) async -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        // Every fetch path comes through here: encrypted values are opened first.
        let results = await openingSealedValues(fetched)
        struct Wanted: Sendable { let recordID: CKRecord.ID; let field: String; let asset: AssetValue }
        var wanted: [Wanted] = []
        for case (let id, .success(let record)) in results {
            for (field, value) in record.fields {
                for asset in value.assetsInOrder where asset.fileURL == nil {
                    if let wire = asset.wire, wire.downloadURL != nil { wanted.append(Wanted(recordID: id, field: field, asset: wire)) }
                }
            }
        }
        guard !wanted.isEmpty else { return results }
        let files = await transfer(wanted) { client, item throws(CKError) in try await client.localFile(for: item.asset) }
        var local: [String: URL] = [:]
        var failures: [CKRecord.ID: CKError] = [:]
        for (item, result) in zip(wanted, files) {
            switch result {
            case .success(let url): local[item.asset.fileChecksum ?? ""] = url
            case .failure(let error): failures[item.recordID] = error
            }
        }
        return results.map { id, result in
            if let failure = failures[id] { return (id, .failure(failure)) }
            guard case .success(let record) = result else { return (id, result) }
            for (field, value) in record.fields where !value.assetsInOrder.isEmpty {
                record.fields[field] = value.replacingAssets { _, asset in
                    guard asset.fileURL == nil, let wire = asset.wire, let file = local[wire.fileChecksum ?? ""] else { return asset }
                    return CKAsset(wire: wire, fileURL: file)
                }
            }
            return (id, result)
        }
    }

    /// Runs `work` for every item, at most `maximumConcurrentTransfers` at a time; results in order.
    func transfer<Item: Sendable, Output: Sendable>(
        _ items: [Item], _ work: @escaping @Sendable (StratusClient, Item) async throws(CKError) -> Output
    ) async -> [Result<Output, CKError>] {
        let client = self.client
        let width = max(1, client.configuration.maximumConcurrentTransfers)
        return await withTaskGroup(of: (Int, Result<Output, CKError>).self) { group in
            var results = [Result<Output, CKError>?](repeating: nil, count: items.count)
            var next = 0
            func start() {
                let index = next
                let item = items[index]
                next += 1
                group.addTask {
                    do throws(CKError) { return (index, .success(try await work(client, item))) } catch { return (index, .failure(error)) }
                }
            }
            while next < min(width, items.count) { start() }
            while let (index, result) = await group.next() {
                results[index] = result
                if next < items.count { start() }
            }
            return results.map { $0! }
        }
    }
}

extension RecordFieldValue {
    /// The assets of an asset or asset-list value, in list order.
    var assetsInOrder: [CKAsset] {
        switch self {
        case .asset(let asset): return [asset]
        case .list(let items): return items.flatMap(\.assetsInOrder)
        default: return []
        }
    }

    /// The value with each asset (numbered in list order) replaced by `transform`.
    func replacingAssets(_ transform: (Int, CKAsset) -> CKAsset) -> RecordFieldValue {
        switch self {
        case .asset(let asset): return .asset(transform(0, asset))
        case .list(let items):
            var index = -1
            return .list(
                items.map { item in
                    guard case .asset(let asset) = item else { return item }
                    index += 1
                    return .asset(transform(index, asset))
                })
        default: return self
        }
    }
}

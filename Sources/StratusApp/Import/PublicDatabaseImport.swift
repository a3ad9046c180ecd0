import StratusEngine
import StratusModel

/// Copies the public database, one record type at a time: each page the source's records/query
/// answers (at most 200 records, inside CloudKit's 400-operation limit) has its assets copied and
/// is then written in one transaction, after which the checkpoint records the next page's marker.
struct PublicDatabaseImport {
    let client: SourceClient
    /// The target; nil in a dry run, which reads and counts but writes nothing.
    let engine: Engine?
    let store: StoreKey
    let copier: AssetCopier?
    let recordTypes: [String]
    let progress: ImportProgress
    static let pageSize = 200

    func run(checkpoint: inout ImportCheckpoint) async throws {
        for type in recordTypes {
            if type == CloudKitSystemType.users {
                progress.update(.publicType(type)) { $0.skipReasons.append("the target makes its own Users records, one per account") }
                continue
            }
            if checkpoint.finishedTypes.contains(type) { continue }
            try await copy(type, checkpoint: &checkpoint)
            checkpoint.finishedTypes.insert(type)
            checkpoint.markers[type] = nil
            if engine != nil { try checkpoint.save() }
        }
    }

    private func copy(_ type: String, checkpoint: inout ImportCheckpoint) async throws {
        var marker = checkpoint.markers[type]
        progress.update(.publicType(type)) { _ in }
        while true {
            var body: [String: JSONValue] = [
                "query": ["recordType": .string(type)], "resultsLimit": .int(Int64(Self.pageSize)),
                "zoneID": ["zoneName": .string(ZoneID.defaultZoneName)],
            ]
            if let marker { body["continuationMarker"] = .string(marker) }
            let answer: JSONValue
            do {
                answer = try await client.post(database: "public", "records/query", .object(body))
            } catch let refusal as SourceRefusal where marker != nil && refusal.code == "BAD_REQUEST" {
                // A checkpointed marker the source no longer accepts (expired): this type starts
                // over; what was copied is found unchanged.
                marker = nil
                checkpoint.markers[type] = nil
                continue
            }
            let records = try (answer["records"]?.arrayValue ?? []).map(SourceRecord.init(json:))
            try await write(records, type: type)
            marker = answer["continuationMarker"]?.stringValue
            checkpoint.markers[type] = marker
            if let copier { checkpoint.assets = await copier.copied }
            if engine != nil { try checkpoint.save() }
            let (files, bytes) = await assetTotals()
            progress.report(.publicType(type), assetFiles: files, assetBytes: bytes, force: marker == nil)
            if marker == nil { return }
        }
    }

    private func write(_ records: [SourceRecord], type: String) async throws {
        progress.update(.publicType(type)) { $0.read += records.count }
        guard let engine, let copier else {
            // A dry run counts the files it would download, by the sizes the source gives.
            for asset in records.flatMap({ $0.record.fields.values.flatMap(\.assets) }) {
                progress.assetsToCopy.files += 1
                progress.assetsToCopy.bytes += asset.size ?? 0
            }
            return
        }
        if records.isEmpty { return }
        var copied: [ImportedRecord] = []
        for record in records { copied.append(try await copier.copyAssets(of: record)) }
        let outcome = try await engine.importRecords(ImportBatch(store: store, records: copied))
        progress.update(.publicType(type)) {
            $0.written += outcome.written
            $0.unchanged += outcome.unchanged
        }
    }

    func assetTotals() async -> (files: Int, bytes: Int64) {
        guard let copier else { return progress.assetsToCopy }
        return (await copier.downloadedFiles, await copier.downloadedBytes)
    }
}

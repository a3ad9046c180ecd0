import StratusEngine
import StratusModel

/// Copies one user's private database: every custom zone changes/database lists, each read
/// through changes/zone page by page (its sync token checkpointed), and `_defaultZone`, which
/// has no change feed, through records/query of each record type (its continuation marker
/// checkpointed). Each page is written in one transaction into the mapped target user's
/// private database.
struct PrivateDatabaseImport {
    let client: SourceClient
    let user: SourceUser
    /// The user's record name at the source and in the target.
    let sourceName: String
    let targetName: String
    let engine: Engine?
    let container: String
    let environment: DatabaseEnvironment
    let copier: AssetCopier?
    let users: UserMap
    let progress: ImportProgress
    /// The record types read from `_defaultZone`.
    let recordTypes: [String]

    func run(checkpoint: inout ImportCheckpoint) async throws {
        for type in recordTypes where type != CloudKitSystemType.users {
            let key = "private \(sourceName) \(ZoneID.defaultZoneName) \(type)"
            if checkpoint.finishedTypes.contains(key) { continue }
            try await copyDefaultZone(type, key: key, checkpoint: &checkpoint)
            checkpoint.finishedTypes.insert(key)
            checkpoint.markers[key] = nil
            if engine != nil { try checkpoint.save() }
        }
        for zone in try await zoneNames() {
            let key = "private \(sourceName) \(zone)"
            if checkpoint.finishedTypes.contains(key) { continue }
            try await copy(zone, key: key, checkpoint: &checkpoint)
            checkpoint.finishedTypes.insert(key)
            checkpoint.markers[key] = nil
            if engine != nil { try checkpoint.save() }
        }
    }

    private func zoneNames() async throws -> [String] {
        var names: [String] = []
        var token: String?
        repeat {
            var body: [String: JSONValue] = [:]
            if let token { body["syncToken"] = .string(token) }
            let answer = try await client.post(database: "private", "changes/database", .object(body), as: user)
            for zone in answer["zones"]?.arrayValue ?? [] where zone["deleted"]?.boolValue != true {
                if let name = zone["zoneID"]?["zoneName"]?.stringValue, name != ZoneID.defaultZoneName, !names.contains(name) { names.append(name) }
            }
            token = answer["moreComing"]?.boolValue == true ? answer["syncToken"]?.stringValue : nil
        } while token != nil
        return names
    }

    private func copy(_ zone: String, key: String, checkpoint: inout ImportCheckpoint) async throws {
        let row = ReportRow(database: "private \(sourceName)", zone: zone, recordType: "*")
        progress.update(row) { _ in }
        var token = checkpoint.markers[key]
        while true {
            var request: [String: JSONValue] = ["zoneID": ["zoneName": .string(zone)]]
            if let token { request["syncToken"] = .string(token) }
            let answer = try await client.post(database: "private", "changes/zone", ["zones": [.object(request)], "resultsLimit": 200], as: user)
            guard let result = answer["zones"]?[0], result["serverErrorCode"] == nil else {
                throw ImportError(
                    "the source answered changes/zone for zone '\(zone)' of user \(sourceName) with \(answer["zones"]?[0]?["serverErrorCode"]?.stringValue ?? "nothing"): \(answer["zones"]?[0]?["reason"]?.stringValue ?? "")"
                )
            }
            let live = (result["records"]?.arrayValue ?? []).filter { $0["deleted"]?.boolValue != true }
            let records = try live.map(SourceRecord.init(json:))
            try await write(records, zone: zone, row: row)
            let more = result["moreComing"]?.boolValue == true
            token = result["syncToken"]?.stringValue
            checkpoint.markers[key] = token
            if let copier { checkpoint.assets = await copier.copied }
            if engine != nil { try checkpoint.save() }
            progress.report(row, assetFiles: await copier?.downloadedFiles ?? 0, assetBytes: await copier?.downloadedBytes ?? 0, force: !more)
            if !more { return }
        }
    }

    private func copyDefaultZone(_ type: String, key: String, checkpoint: inout ImportCheckpoint) async throws {
        let row = ReportRow(database: "private \(sourceName)", zone: ZoneID.defaultZoneName, recordType: type)
        progress.update(row) { _ in }
        var marker = checkpoint.markers[key]
        while true {
            var body: [String: JSONValue] = [
                "query": ["recordType": .string(type)], "resultsLimit": 200, "zoneID": ["zoneName": .string(ZoneID.defaultZoneName)],
            ]
            if let marker { body["continuationMarker"] = .string(marker) }
            let answer = try await client.post(database: "private", "records/query", .object(body), as: user)
            let records = try (answer["records"]?.arrayValue ?? []).map(SourceRecord.init(json:))
            try await write(records, zone: ZoneID.defaultZoneName, row: row)
            marker = answer["continuationMarker"]?.stringValue
            checkpoint.markers[key] = marker
            if let copier { checkpoint.assets = await copier.copied }
            if engine != nil { try checkpoint.save() }
            progress.report(row, assetFiles: await copier?.downloadedFiles ?? 0, assetBytes: await copier?.downloadedBytes ?? 0, force: marker == nil)
            if marker == nil { return }
        }
    }

    private func write(_ records: [SourceRecord], zone: String, row: ReportRow) async throws {
        progress.update(row) { $0.read += records.count }
        guard let engine, let copier, !records.isEmpty else { return }
        var copied: [ImportedRecord] = []
        for source in records {
            var record = try await copier.copyAssets(of: source)
            record.created.userRecordName = users.mapped(record.created.userRecordName)
            record.modified.userRecordName = users.mapped(record.modified.userRecordName)
            copied.append(record)
        }
        let store = StoreKey(container: container, environment: environment, scope: .private, owner: targetName)
        let outcome = try await engine.importRecords(ImportBatch(store: store, zoneName: zone, records: copied))
        progress.update(row) {
            $0.written += outcome.written
            $0.unchanged += outcome.unchanged
        }
    }
}

import Foundation
import StratusModel

/// The CKWS limit on operations and records per request (docs/protocol.md §11). Bigger batches are
/// split for the caller.
let maximumItemsPerRequest = 200

/// Groups items by zone, keeping the caller's order within each zone.
func groupedByZone<T>(_ items: [T], zone: (T) -> CKRecordZone.ID) -> [(CKRecordZone.ID, [T])] {
    var order: [CKRecordZone.ID] = []
    var groups: [CKRecordZone.ID: [T]] = [:]
    for item in items {
        let z = zone(item)
        if groups[z] == nil { order.append(z) }
        groups[z, default: []].append(item)
    }
    return order.map { ($0, groups[$0] ?? []) }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension CKDatabase {
    /// Fetches records by ID (`records/lookup`), one result per ID in the caller's order.
    func lookupRecords(_ ids: [CKRecord.ID], desiredKeys: [String]?) async throws(CKError) -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for (zone, zoneIDs) in groupedByZone(ids, zone: { $0.zoneID }) {
            for chunk in zoneIDs.chunked(maximumItemsPerRequest) {
                var body: [String: JSONValue] = [
                    "records": .array(chunk.map { .object(["recordName": .string($0.recordName)]) }),
                    "zoneID": zone.wire.json,
                ]
                if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
                let answer = try await request("records/lookup", body: .object(body))
                let items = answer["records"]?.arrayValue ?? []
                for (index, id) in chunk.enumerated() {
                    guard index < items.count else {
                        results[id] = .failure(CKError(.serverResponseLost, "records/lookup returned fewer records than asked for"))
                        continue
                    }
                    results[id] = Self.recordResult(items[index], zone: zone)
                }
            }
        }
        return await withDownloadedAssets(ids.map { ($0, results[$0] ?? .failure(CKError(.unknownItem, "record not found"))) })
    }

    static func recordResult(_ item: JSONValue, zone: CKRecordZone.ID) -> Result<CKRecord, any Error> {
        if let error = CKError(errorDictionary: item) { return .failure(error) }
        guard let record = CKRecord.fromWire(item, zoneID: zone) else {
            return .failure(CKError(.serverResponseLost, "the server sent a record without a name"))
        }
        return .success(record)
    }

    /// Saves and deletes records (`records/modify`), split by zone and into batches the server
    /// accepts. Conflicts carry the server's copy of the record as `serverRecord`.
    /// A delete with an entry in `deleteChangeTags` is conditional (`delete` against that change
    /// tag: it fails with `serverRecordChanged` when the record changed since); others are
    /// unconditional (`forceDelete`), as CloudKit's deletes are.
    func modify(
        saving: [CKRecord], deleting: [CKRecord.ID], policy: CKModifyRecordsOperation.RecordSavePolicy,
        atomically: Bool, desiredKeys: [String]? = nil, deleteChangeTags: [CKRecord.ID: String] = [:]
    ) async throws(CKError)
        -> (saves: [(CKRecord.ID, Result<CKRecord, any Error>)], deletes: [(CKRecord.ID, Result<Void, any Error>)])
    {
        enum Item { case save(CKRecord), delete(CKRecord.ID) }
        var saveResults: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        // New local files go up first; a record whose file cannot be uploaded fails on its own.
        let uploads = try await uploadAssets(of: saving)
        var replacements: [CKRecord.ID: [String: RecordFieldValue]] = [:]
        let uploadable = saving.filter { record in
            switch uploads[record.recordID] {
            case .failure(let error)?:
                saveResults[record.recordID] = .failure(error)
                return false
            case .success(let replaced)?:
                replacements[record.recordID] = replaced
                return true
            case nil:
                return true
            }
        }
        // Encrypted values go sealed in place of the record's own.
        let sealed = try await sealedValues(of: uploadable)
        let items = uploadable.map(Item.save) + deleting.map(Item.delete)
        var deleteResults: [CKRecord.ID: Result<Void, any Error>] = [:]
        let zoneOf: (Item) -> CKRecordZone.ID = { item in
            switch item {
            case .save(let r): return r.recordID.zoneID
            case .delete(let id): return id.zoneID
            }
        }
        for (zone, zoneItems) in groupedByZone(items, zone: zoneOf) {
            for chunk in zoneItems.chunked(maximumItemsPerRequest) {
                let operations: [JSONValue] = chunk.map { item in
                    switch item {
                    case .save(let record):
                        let sent = (replacements[record.recordID] ?? [:]).merging(sealed[record.recordID] ?? [:]) { _, sealedValue in sealedValue }
                        return record.saveOperation(policy: policy, replacing: sent)
                    case .delete(let id):
                        if let tag = deleteChangeTags[id] {
                            return .object([
                                "operationType": "delete",
                                "record": .object(["recordName": .string(id.recordName), "recordChangeTag": .string(tag)]),
                            ])
                        }
                        return .object(["operationType": "forceDelete", "record": .object(["recordName": .string(id.recordName)])])
                    }
                }
                var body: [String: JSONValue] = [
                    "operations": .array(operations),
                    "zoneID": zone.wire.json,
                    "atomic": .bool(atomically && zone.zoneName != CKRecordZone.ID.defaultZoneName),
                ]
                if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
                let answer = try await request("records/modify", body: .object(body))
                let results = answer["records"]?.arrayValue ?? []
                for (index, item) in chunk.enumerated() {
                    let result: JSONValue? = index < results.count ? results[index] : nil
                    switch item {
                    case .save(let record):
                        saveResults[record.recordID] = Self.saveResult(result, for: record, uploaded: replacements[record.recordID] ?? [:])
                    case .delete(let id):
                        if let result, let error = CKError(errorDictionary: result) {
                            deleteResults[id] = .failure(error)
                        } else if result == nil {
                            deleteResults[id] = .failure(CKError(.serverResponseLost, "records/modify returned fewer results than operations"))
                        } else {
                            deleteResults[id] = .success(())
                        }
                    }
                }
            }
        }
        try await attachServerRecords(to: &saveResults)
        return (saving.map { ($0.recordID, saveResults[$0.recordID]!) }, deleting.map { ($0, deleteResults[$0]!) })
    }

    private static func saveResult(_ item: JSONValue?, for record: CKRecord, uploaded: [String: RecordFieldValue]) -> Result<CKRecord, any Error> {
        guard let item else {
            return .failure(CKError(.serverResponseLost, "records/modify returned fewer results than operations"))
        }
        var extra: [String: Any] = [CKRecordChangedErrorClientRecordKey: record]
        if let serverJSON = item["serverRecord"], let serverRecord = CKRecord.fromWire(serverJSON, zoneID: record.recordID.zoneID) {
            extra[CKRecordChangedErrorServerRecordKey] = serverRecord
        }
        if let error = CKError(errorDictionary: item, extra: extra) {
            return .failure(error)
        }
        let saved = record.copy() as! CKRecord
        saved.applyServerState(item)
        // The server echoes encrypted values sealed; the saved record keeps them readable.
        for key in record.encryptedKeys { saved.fields[key] = record.fields[key] }
        record.adopt(systemFieldsOf: saved)
        // Uploaded assets keep their local file; the server now holds them, so they are not sent again.
        for (field, value) in uploaded {
            let stored = value.replacingAssets { _, asset in
                CKAsset(
                    wire: AssetValue(
                        fileChecksum: asset.wire?.fileChecksum, size: asset.wire?.size,
                        downloadURL: saved.fields[field]?.assetsInOrder.first?.wire?.downloadURL), fileURL: asset.fileURL)
            }
            saved.fields[field] = stored
            record.fields[field] = stored
        }
        record.clearChanges()
        return .success(saved)
    }

    /// Fetches the server's copy of every record whose save hit a conflict, for `serverRecord`.
    private func attachServerRecords(to results: inout [CKRecord.ID: Result<CKRecord, any Error>]) async throws(CKError) {
        let conflicted = results.compactMap { id, result -> CKRecord.ID? in
            if case .failure(let error as CKError) = result, error.code == .serverRecordChanged, error.serverRecord == nil { return id }
            return nil
        }
        guard !conflicted.isEmpty else { return }
        for (id, fetched) in try await lookupRecords(conflicted, desiredKeys: nil) {
            guard case .success(let serverRecord) = fetched, case .failure(let error as CKError)? = results[id] else { continue }
            var info = error.userInfo
            info[CKRecordChangedErrorServerRecordKey] = serverRecord
            results[id] = .failure(CKError(error.code, userInfo: info))
        }
    }
}

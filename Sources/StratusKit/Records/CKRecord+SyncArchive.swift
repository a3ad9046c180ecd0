import Foundation
import StratusModel

// What StratusSync needs to keep records in its local cache and merge them field by field:
// a record as one JSON document (system fields + each value's archive JSON, the same form
// `encode(with:)` uses), and per-field JSON access. Package access, not public API: apps use
// CKRecord's subscripts; the sync engine is the only other module that needs the wire-level view.

extension CKRecord {
    /// Every value as its archive JSON (`{"value": …, "type": …}`), keyed by field name.
    package var archivedValues: [CKRecord.FieldKey: JSONValue] { fields.mapValues(\.archiveJSON) }

    /// Sets (or, with `nil`, removes) one value from its archive JSON, marking the key changed so
    /// a later save sends it. Returns false when the JSON is not a field value.
    @discardableResult
    package func setArchivedValue(_ json: JSONValue?, forKey key: CKRecord.FieldKey) -> Bool {
        guard let json else {
            self[key] = nil
            return true
        }
        guard let value = RecordFieldValue(archiveJSON: json, zoneID: recordID.zoneID) else { return false }
        fields[key] = value
        if !changedKeyList.contains(key) { changedKeyList.append(key) }
        return true
    }

    /// The whole record as one JSON document: identity, system fields and values.
    package var archiveDocument: JSONValue {
        var members: [String: JSONValue] = [
            "recordType": .string(recordType),
            "recordName": .string(recordID.recordName),
            "zoneName": .string(recordID.zoneID.zoneName),
            "ownerName": .string(recordID.zoneID.ownerName),
            "values": .object(archivedValues),
        ]
        if let recordChangeTag { members["recordChangeTag"] = .string(recordChangeTag) }
        if let creationDate { members["created"] = .double(creationDate.timeIntervalSince1970) }
        if let modificationDate { members["modified"] = .double(modificationDate.timeIntervalSince1970) }
        if let creatorUserRecordID { members["creator"] = .string(creatorUserRecordID.recordName) }
        if let lastModifiedUserRecordID { members["modifier"] = .string(lastModifiedUserRecordID.recordName) }
        if let parent { members["parent"] = .string(parent.recordID.recordName) }
        if !encryptedKeys.isEmpty { members["encrypted"] = .array(encryptedKeys.sorted().map { .string($0) }) }
        return .object(members)
    }

    /// Rebuilds a record from ``archiveDocument``, with no changed keys; `nil` when the document
    /// does not hold a record.
    package convenience init?(archiveDocument json: JSONValue) {
        guard let type = json["recordType"]?.stringValue, let name = json["recordName"]?.stringValue,
            let zoneName = json["zoneName"]?.stringValue
        else { return nil }
        let zoneID = CKRecordZone.ID(zoneName: zoneName, ownerName: json["ownerName"]?.stringValue ?? CKCurrentUserDefaultName)
        self.init(recordType: type, recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        recordChangeTag = json["recordChangeTag"]?.stringValue
        creationDate = json["created"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        modificationDate = json["modified"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        creatorUserRecordID = json["creator"]?.stringValue.map { CKRecord.ID(recordName: $0) }
        lastModifiedUserRecordID = json["modifier"]?.stringValue.map { CKRecord.ID(recordName: $0) }
        if let parentName = json["parent"]?.stringValue {
            parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: parentName, zoneID: zoneID), action: .none)
        }
        for (key, value) in json["values"]?.objectValue ?? [:] {
            if let field = RecordFieldValue(archiveJSON: value, zoneID: zoneID) { fields[key] = field }
        }
        encryptedKeys = Set(json["encrypted"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        clearChanges()
    }

    /// Takes another record's server version tag and dates (after a merge, the merged values are
    /// saved against the server's current version).
    package func adoptServerSystemFields(of other: CKRecord) { adopt(systemFieldsOf: other) }

    /// Forgets which keys changed (the record now matches what the server holds).
    package func markSaved() { clearChanges() }

    /// Marks every key changed, so the next save sends every value.
    package func markAllValuesChanged() {
        changedKeyList = allKeys()
    }

    /// Drops the server version tag, so the next save creates the record again (after a remote
    /// delete that a local edit outlives).
    package func forgetServerVersion() { recordChangeTag = nil }
}

extension CKServerChangeToken {
    /// The token's opaque text, for the sync engine's local store.
    package var storedText: String { value }

    /// A token read back from the sync engine's local store.
    package convenience init(storedText: String) { self.init(value: storedText) }
}

extension CKDatabase {
    /// `modifyRecords(saving:deleting:savePolicy:atomically:)` with conditional deletes: each
    /// delete names the change tag it was based on and fails with `serverRecordChanged` when the
    /// record changed since (so the sync engine can let an edit beat a stale delete).
    package func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        deleteChangeTags: [CKRecord.ID: String]
    ) async throws
        -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>])
    {
        let outcome = try await modify(
            saving: recordsToSave, deleting: recordIDsToDelete, policy: .ifServerRecordUnchanged,
            atomically: false, deleteChangeTags: deleteChangeTags)
        return (
            Dictionary(outcome.saves, uniquingKeysWith: { _, last in last }),
            Dictionary(outcome.deletes, uniquingKeysWith: { _, last in last })
        )
    }
}

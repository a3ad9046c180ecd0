import Foundation
import StratusModel

// Long-lived operations: an operation added with `configuration.isLongLived` is written to disk
// (LongLivedOperationStore) before it runs and removed when it finishes. A new process of the app
// lists what is left (`fetchAllLongLivedOperationIDs`), rebuilds an operation
// (`fetchLongLivedOperation(withID:)`), sets its blocks and adds it: it runs again in full and
// delivers its results there. Record saves, deletes and fetches can be long-lived, and so can the
// operations in LongLivedOperationKinds.swift.

/// An operation that can be written down and rebuilt.
protocol LongLivedPersistable: CKDatabaseOperation {
    /// What the operation does, as JSON (`kind` plus its arguments).
    var longLivedDocument: JSONValue { get }
}

enum LongLivedOperations {
    /// Writes a long-lived operation down before it runs and tells the app it is persisted.
    static func persist(_ operation: CKDatabaseOperation, in database: CKDatabase) throws(CKError) {
        guard operation.configuration.isLongLived, let persistable = operation as? any LongLivedPersistable else { return }
        var document = persistable.longLivedDocument.objectValue ?? [:]
        document["database"] = .int(Int64(database.databaseScope.rawValue))
        try LongLivedOperationStore(database.client.configuration).save(.object(document), id: operation.operationID)
        operation.longLivedOperationWasPersistedBlock?()
    }

    /// Forgets a long-lived operation that has finished (its blocks have been called).
    static func finished(_ operation: CKOperation) {
        guard let operation = operation as? CKDatabaseOperation, operation.configuration.isLongLived,
            let database = operation.database
        else { return }
        LongLivedOperationStore(database.client.configuration).remove(operation.operationID)
    }

    /// Rebuilds an operation written by ``persist(_:in:)``; `nil` when the document is unreadable.
    static func restore(_ document: JSONValue, id: CKOperation.ID, container: CKContainer) -> CKDatabaseOperation? {
        let operation: CKDatabaseOperation?
        switch document["kind"]?.stringValue {
        case "modifyRecords": operation = CKModifyRecordsOperation(longLivedDocument: document)
        case "fetchRecords": operation = CKFetchRecordsOperation(longLivedDocument: document)
        case "modifyRecordZones": operation = CKModifyRecordZonesOperation(longLivedDocument: document)
        case "fetchRecordZones": operation = CKFetchRecordZonesOperation(longLivedDocument: document)
        case "modifySubscriptions": operation = CKModifySubscriptionsOperation(longLivedDocument: document)
        case "fetchSubscriptions": operation = CKFetchSubscriptionsOperation(longLivedDocument: document)
        case "query": operation = CKQueryOperation(longLivedDocument: document)
        case "fetchDatabaseChanges": operation = CKFetchDatabaseChangesOperation(longLivedDocument: document)
        case "fetchRecordZoneChanges": operation = CKFetchRecordZoneChangesOperation(longLivedDocument: document)
        default: operation = nil
        }
        guard let operation else { return nil }
        let scope = document["database"]?.int64Value.flatMap { CKDatabase.Scope(rawValue: Int($0)) } ?? .private
        operation.database = container.database(with: scope)
        operation.operationID = id
        let configuration = CKOperation.Configuration()
        configuration.isLongLived = true
        operation.configuration = configuration
        return operation
    }

    static func recordIDJSON(_ id: CKRecord.ID) -> JSONValue {
        .object(["recordName": .string(id.recordName), "zoneName": .string(id.zoneID.zoneName), "ownerName": .string(id.zoneID.ownerName)])
    }

    static func recordID(_ json: JSONValue) -> CKRecord.ID? {
        guard let name = json["recordName"]?.stringValue, let zone = json["zoneName"]?.stringValue else { return nil }
        return CKRecord.ID(recordName: name, zoneID: CKRecordZone.ID(zoneName: zone, ownerName: json["ownerName"]?.stringValue ?? CKCurrentUserDefaultName))
    }
}

extension CKModifyRecordsOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        .object([
            "kind": "modifyRecords",
            // Each record with the keys still to send (its archive has none marked changed).
            "recordsToSave": .array(
                (recordsToSave ?? []).map { record in
                    .object(["record": record.archiveDocument, "changedKeys": .array(record.changedKeys().map { .string($0) })])
                }),
            "recordIDsToDelete": .array((recordIDsToDelete ?? []).map(LongLivedOperations.recordIDJSON)),
            "savePolicy": .int(Int64(savePolicy.rawValue)),
            "atomic": .bool(isAtomic),
        ])
    }

    convenience init?(longLivedDocument document: JSONValue) {
        var records: [CKRecord] = []
        for item in document["recordsToSave"]?.arrayValue ?? [] {
            guard let archived = item["record"], let record = CKRecord(archiveDocument: archived) else { return nil }
            record.changedKeyList = item["changedKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
            records.append(record)
        }
        self.init(recordsToSave: records, recordIDsToDelete: (document["recordIDsToDelete"]?.arrayValue ?? []).compactMap(LongLivedOperations.recordID))
        savePolicy = document["savePolicy"]?.int64Value.flatMap { RecordSavePolicy(rawValue: Int($0)) } ?? .ifServerRecordUnchanged
        isAtomic = document["atomic"]?.boolValue ?? true
    }
}

extension CKFetchRecordsOperation: LongLivedPersistable {
    var longLivedDocument: JSONValue {
        var members: [String: JSONValue] = [
            "kind": "fetchRecords",
            "recordIDs": .array((recordIDs ?? []).map(LongLivedOperations.recordIDJSON)),
        ]
        if let desiredKeys { members["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        return .object(members)
    }

    convenience init?(longLivedDocument document: JSONValue) {
        self.init(recordIDs: (document["recordIDs"]?.arrayValue ?? []).compactMap(LongLivedOperations.recordID))
        desiredKeys = document["desiredKeys"]?.arrayValue?.compactMap(\.stringValue)
    }
}

import Foundation
import StratusKit
import StratusModel

extension SyncEngine {
    /// Sends every queued local change, batch by batch, resolving conflicts the server reports;
    /// returns when the queue is empty (parked changes aside).
    public func sendChanges() async throws {
        try await serialized { engine in try await engine.sendAll() }
    }

    func sendAll() async throws {
        let queued = try store.pendingCount()
        emit(.willSendChanges(pending: queued.queued - queued.parked))
        try await withRetries { try await createPendingZones() }
        // A batch that only resolved conflicts re-queues them; the bound stops a resolver that
        // never converges from looping forever.
        var rounds = 0
        while rounds < 1_000_000 {
            rounds += 1
            var sentSomething = false
            try await withRetries { sentSomething = try await sendBatch() }
            if !sentSomething { break }
        }
        emit(.didSendChanges)
    }

    /// Creates the zones local saves introduced.
    func createPendingZones() async throws {
        let missing = try store.zones().filter(\.needsCreate).map(\.zoneID)
        guard !missing.isEmpty else { return }
        let (saved, _) = try await database.modifyRecordZones(saving: missing.map { CKRecordZone(zoneID: $0) }, deleting: [])
        try store.transaction {
            for (zoneID, result) in saved {
                if case .success = result { try store.markZoneCreated(zoneID) }
            }
        }
        for (_, result) in saved { if case .failure(let error) = result { throw error } }
    }

    /// One batch: at most `maximumBatchOperations` changes and `maximumBatchBytes` of records,
    /// oldest first. Returns false when nothing was queued.
    func sendBatch() async throws -> Bool {
        let batch = try buildBatch()
        guard !batch.isEmpty else { return false }
        let outcome: (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>])
        do {
            outcome = try await database.modifyRecords(saving: batch.saves, deleting: batch.deletes, deleteChangeTags: batch.deleteTags)
        } catch let error as CKError where error.code == .zoneNotFound || error.code == .userDeletedZone {
            try await forgetDeletedZones(Set(batch.saves.map(\.recordID.zoneID) + batch.deletes.map(\.zoneID)))
            return true
        }
        // A delete that met a newer server version: the resolver needs that version.
        var changedUnderDelete: [CKRecord.ID: CKRecord] = [:]
        for (id, result) in outcome.deleteResults {
            if case .failure(let error as CKError) = result, error.code == .serverRecordChanged {
                changedUnderDelete[id] = try? await database.record(for: id)
            }
        }
        var saved: [CKRecord.ID] = []
        var deleted: [CKRecord.ID] = []
        var transient: CKError?
        var missingZones = Set<CKRecordZone.ID>()
        try store.transaction {
            for (id, result) in outcome.saveResults {
                switch result {
                case .success(let record):
                    try acknowledgeSave(id, record, sentVersion: batch.versions[id] ?? 0)
                    saved.append(id)
                case .failure(let error):
                    try handleFailure(id, CKError.wrap(error), transient: &transient, missingZones: &missingZones)
                }
            }
            for (id, result) in outcome.deleteResults {
                switch result {
                case .success:
                    try acknowledgeDelete(id, sentVersion: batch.versions[id] ?? 0)
                    deleted.append(id)
                case .failure(let error):
                    let error = CKError.wrap(error)
                    if error.code == .serverRecordChanged {
                        try resolveConflict(id, server: changedUnderDelete[id])
                    } else if error.code == .unknownItem {
                        try acknowledgeDelete(id, sentVersion: batch.versions[id] ?? 0)
                        deleted.append(id)
                    } else {
                        try handleFailure(id, error, transient: &transient, missingZones: &missingZones)
                    }
                }
            }
        }
        if !saved.isEmpty || !deleted.isEmpty { emit(.sentRecordZoneChanges(saved: saved, deleted: deleted)) }
        if !missingZones.isEmpty { try await forgetDeletedZones(missingZones) }
        if let transient { throw transient }
        return true
    }

    struct Batch {
        var saves: [CKRecord] = []
        var deletes: [CKRecord.ID] = []
        var versions: [CKRecord.ID: Int64] = [:]
        /// The server version each delete was based on (deletes are conditional).
        var deleteTags: [CKRecord.ID: String] = [:]
        var isEmpty: Bool { saves.isEmpty && deletes.isEmpty }
    }

    /// Reads the oldest queued changes into records to save and IDs to delete. A record created
    /// and deleted locally before it was ever sent leaves the queue without a request.
    func buildBatch() throws -> Batch {
        var batch = Batch()
        var bytes = 0
        for entry in try store.pendingBatch(limit: configuration.maximumBatchOperations) {
            let id = entry.recordID
            guard let row = try store.storedRecord(id) else {
                try store.transaction { try store.dequeue(id) }
                continue
            }
            if let local = row.local, let record = CKRecord(archiveDocument: local) {
                let size = local.serializedString.utf8.count
                if bytes + size > configuration.maximumBatchBytes, !batch.isEmpty { break }
                bytes += size
                batch.saves.append(Self.recordToSend(record, server: row.server))
            } else if let server = row.server {
                batch.deletes.append(id)
                if let tag = server["recordChangeTag"]?.stringValue { batch.deleteTags[id] = tag }
            } else {
                try store.transaction {
                    try store.removeRecord(id)
                    try store.dequeue(id, ifVersion: entry.version)
                }
                continue
            }
            batch.versions[id] = entry.version
        }
        return batch
    }

    /// The local values on top of the server version they were based on: an update against the
    /// server's change tag sending every value (and clearing values removed locally), or a
    /// create when the server has no version.
    static func recordToSend(_ local: CKRecord, server: JSONValue?) -> CKRecord {
        let record = local.copy() as! CKRecord
        guard let server, let base = CKRecord(archiveDocument: server) else {
            record.forgetServerVersion()
            record.markAllValuesChanged()
            return record
        }
        record.adoptServerSystemFields(of: base)
        record.markAllValuesChanged()
        for key in base.allKeys() where local.archivedValues[key] == nil { record.setArchivedValue(nil, forKey: key) }
        return record
    }

    /// The server took a save: it becomes the new ancestor; the queue entry goes unless the
    /// record was edited again while the batch was in flight.
    func acknowledgeSave(_ id: CKRecord.ID, _ saved: CKRecord, sentVersion: Int64) throws {
        guard var row = try store.storedRecord(id) else { return }
        let document = saved.archiveDocument
        row.server = document
        if try store.dequeue(id, ifVersion: sentVersion) { row.local = document }
        try store.put(row)
    }

    func acknowledgeDelete(_ id: CKRecord.ID, sentVersion: Int64) throws {
        if try store.dequeue(id, ifVersion: sentVersion) {
            try store.removeRecord(id)
        } else if var row = try store.storedRecord(id) {
            // Saved again locally while the delete was in flight: it will be created anew.
            row.server = nil
            try store.put(row)
        }
    }

    func handleFailure(_ id: CKRecord.ID, _ error: CKError, transient: inout CKError?, missingZones: inout Set<CKRecordZone.ID>) throws {
        switch error.code {
        case .serverRecordChanged:
            try resolveConflict(id, server: error.serverRecord)
        case .unknownItem:
            // Updated a record another device deleted.
            try resolveConflict(id, server: nil)
        case .zoneNotFound, .userDeletedZone:
            missingZones.insert(id.zoneID)
        default:
            if error.isTransient || error.isAuthenticationFailure {
                transient = transient ?? error
            } else {
                try store.park(id, reason: error.localizedDescription)
                emit(.changeRefused(recordID: id, error: error))
            }
        }
    }
}

extension CKError {
    static func wrap(_ error: any Error) -> CKError {
        (error as? CKError) ?? CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
    }
}

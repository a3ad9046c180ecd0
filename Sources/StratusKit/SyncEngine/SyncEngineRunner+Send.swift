import Foundation

extension SyncEngineRunner {
    /// Zone changes first, then record batches from the delegate until it has none. Sent changes
    /// leave the pending list whether they succeeded or failed for good (the app sees each
    /// failure in `sentRecordZoneChanges` and adds the change again if it wants it retried);
    /// failures the engine retries stay pending.
    func performSend(_ options: CKSyncEngine.SendChangesOptions, reason: CKSyncEngine.SyncReason) async throws {
        guard let (engine, delegate) = participants else { return }
        let context = CKSyncEngine.SendChangesContext(reason: reason, options: options)
        await emit(.willSendChanges(CKSyncEngine.Event.WillSendChanges(context: context)))
        guard try await checkAccount() else {
            await emit(.didSendChanges(CKSyncEngine.Event.DidSendChanges(context: context)))
            return
        }
        try await sendDatabaseChanges(options.scope)
        var sendsPerChange: [CKSyncEngine.PendingRecordZoneChange: Int] = [:]
        while let offered = await delegate.nextRecordZoneChangeBatch(context, syncEngine: engine),
            !offered.recordsToSave.isEmpty || !offered.recordIDsToDelete.isEmpty
        {
            try Task.checkCancellation()
            // Zones the app queued while handling the last batch's failures (Apple's sample
            // recreates a zone the server no longer has) go first, so its records can follow.
            try await sendDatabaseChanges(options.scope)
            // A change the app adds again after each failure would otherwise be sent for as long
            // as the server refuses it: the send ends with it still pending for the next one.
            let batch = offered.keeping { sendsPerChange[$0, default: 0] < Self.sendsPerChangePerSend }
            guard !batch.recordsToSave.isEmpty || !batch.recordIDsToDelete.isEmpty else { break }
            for change in batch.changes { sendsPerChange[change, default: 0] += 1 }
            // A batch that takes nothing off the pending list would come back the same forever.
            guard try await sendRecordBatch(batch) else { break }
        }
        await emit(.didSendChanges(CKSyncEngine.Event.DidSendChanges(context: context)))
    }

    /// How often one send sends the same change: once, and once more after the app added it again
    /// while handling the result (a merged conflict, a record for a recreated zone).
    static let sendsPerChangePerSend = 2

    private func sendDatabaseChanges(_ scope: CKSyncEngine.SendChangesOptions.Scope) async throws {
        let pending = state.pendingDatabaseChanges.filter { scope.contains(zone: $0.zoneID) }
        guard !pending.isEmpty else { return }
        let zonesToSave = pending.compactMap { change -> CKRecordZone? in if case .saveZone(let zone) = change { return zone } else { return nil } }
        let zonesToDelete = pending.compactMap { change -> CKRecordZone.ID? in if case .deleteZone(let id) = change { return id } else { return nil } }
        let results = try await retrying { try await database.modifyRecordZones(saving: zonesToSave, deleting: zonesToDelete) }
        var saved: [CKRecordZone] = []
        var failedSaves: [CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave] = []
        var deleted: [CKRecordZone.ID] = []
        var failedDeletes: [CKRecordZone.ID: CKError] = [:]
        var done: [CKSyncEngine.PendingDatabaseChange] = []
        for zone in zonesToSave {
            switch results.saveResults[zone.zoneID] {
            case .success(let savedZone)?:
                saved.append(savedZone)
                done.append(.saveZone(zone))
            case .failure(let error)?:
                let error = SyncEngineRunner.ckError(error)
                failedSaves.append(.init(zone: zone, error: error))
                if !error.isRetriedBySyncEngine { done.append(.saveZone(zone)) }
            case nil:
                break
            }
        }
        for zoneID in zonesToDelete {
            switch results.deleteResults[zoneID] {
            case .success?:
                deleted.append(zoneID)
                done.append(.deleteZone(zoneID))
            case .failure(let error)?:
                let error = SyncEngineRunner.ckError(error)
                failedDeletes[zoneID] = error
                if !error.isRetriedBySyncEngine { done.append(.deleteZone(zoneID)) }
            case nil:
                break
            }
        }
        state.remove(pendingDatabaseChanges: done)
        await emit(
            .sentDatabaseChanges(
                CKSyncEngine.Event.SentDatabaseChanges(
                    savedZones: saved, failedZoneSaves: failedSaves,
                    deletedZoneIDs: deleted, failedZoneDeletes: failedDeletes)))
        await emitStateUpdate()
    }

    /// Sends one batch, a request per zone (a zone the server refuses as a whole fails its own
    /// records only). Returns whether any pending change was completed.
    private func sendRecordBatch(_ batch: CKSyncEngine.RecordZoneChangeBatch) async throws -> Bool {
        let marks = state.additionMarks(batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete)
        var zones: [CKRecordZone.ID] = []
        for id in batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete where !zones.contains(id.zoneID) { zones.append(id.zoneID) }
        var saved: [CKRecord] = []
        var failedSaves: [CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave] = []
        var deleted: [CKRecord.ID] = []
        var failedDeletes: [CKRecord.ID: CKError] = [:]
        for zoneID in zones {
            let saves = batch.recordsToSave.filter { $0.recordID.zoneID == zoneID }
            let deletes = batch.recordIDsToDelete.filter { $0.zoneID == zoneID }
            do {
                let results = try await retrying {
                    try await database.modifyRecords(saving: saves, deleting: deletes, savePolicy: .ifServerRecordUnchanged, atomically: batch.atomicByZone)
                }
                for record in saves {
                    switch results.saveResults[record.recordID] {
                    case .success(let savedRecord)?: saved.append(savedRecord)
                    case .failure(let error)?: failedSaves.append(.init(record: record, error: SyncEngineRunner.ckError(error)))
                    case nil: break
                    }
                }
                for id in deletes {
                    switch results.deleteResults[id] {
                    case .success?: deleted.append(id)
                    case .failure(let error)?: failedDeletes[id] = SyncEngineRunner.ckError(error)
                    case nil: break
                    }
                }
            } catch let error as CKError where !error.isRetriedBySyncEngine && error.code != .operationCancelled {
                failedSaves += saves.map { .init(record: $0, error: error) }
                for id in deletes { failedDeletes[id] = error }
            }
        }
        var done: [CKSyncEngine.PendingRecordZoneChange] = saved.map { .saveRecord($0.recordID) } + deleted.map { .deleteRecord($0) }
        done += failedSaves.filter { !$0.error.isRetriedBySyncEngine }.map { .saveRecord($0.record.recordID) }
        done += failedDeletes.filter { !$0.value.isRetriedBySyncEngine }.map { .deleteRecord($0.key) }
        // Counted before the event: the app may add changes again while handling it (a merged
        // conflict), and those go in the next batch of this send.
        let completed = state.removeSent(done, marks: marks)
        await emit(
            .sentRecordZoneChanges(
                CKSyncEngine.Event.SentRecordZoneChanges(
                    savedRecords: saved, failedRecordSaves: failedSaves,
                    deletedRecordIDs: deleted, failedRecordDeletes: failedDeletes)))
        await emitStateUpdate()
        return completed > 0
    }

    static func ckError(_ error: any Error) -> CKError {
        error as? CKError ?? CKError(.internalError, "\(error)")
    }
}

import Foundation

extension SyncEngineRunner {
    /// Database changes first (which zones changed), then the records of each changed zone in
    /// scope, page by page; a `stateUpdate` after each page so an interrupted fetch resumes.
    func performFetch(_ requested: CKSyncEngine.FetchChangesOptions, reason: CKSyncEngine.SyncReason) async throws {
        guard let (engine, delegate) = participants else { return }
        let options = await delegate.nextFetchChangesOptions(CKSyncEngine.FetchChangesContext(reason: reason, options: requested), syncEngine: engine)
        let context = CKSyncEngine.FetchChangesContext(reason: reason, options: options)
        await emit(.willFetchChanges(CKSyncEngine.Event.WillFetchChanges(context: context)))
        guard try await checkAccount() else {
            await emit(.didFetchChanges(CKSyncEngine.Event.DidFetchChanges(context: context)))
            return
        }
        try await fetchDatabaseChanges()
        let unfetched = state.zoneIDsWithUnfetchedServerChanges.filter(options.scope.contains)
        let first = options.prioritizedZoneIDs.filter(unfetched.contains)
        for zoneID in first + unfetched.filter({ !first.contains($0) }) {
            try Task.checkCancellation()
            try await fetchRecordZoneChanges(zoneID)
        }
        await emit(.didFetchChanges(CKSyncEngine.Event.DidFetchChanges(context: context)))
    }

    /// Pages `changes/database` from the stored token; changed zones join the unfetched list.
    /// An expired token starts over from no token (the server then lists every zone).
    private func fetchDatabaseChanges() async throws {
        var token = state.contents.withLock { $0.databaseToken }
        var moreComing = true
        while moreComing {
            let page:
                (
                    modifications: [CKDatabase.DatabaseChange.Modification], deletions: [CKDatabase.DatabaseChange.Deletion],
                    changeToken: CKServerChangeToken, moreComing: Bool
                )
            do {
                let since = token.map(CKServerChangeToken.init(value:))
                page = try await retrying { try await database.databaseChanges(since: since) }
            } catch let error as CKError where error.code == .changeTokenExpired && token != nil {
                token = nil
                continue
            }
            // The default zone has no change feed; only custom zones sync.
            let modifications = page.modifications.filter { $0.zoneID.zoneName != CKRecordZone.ID.defaultZoneName }
            let deletions = page.deletions
            token = page.changeToken.value
            state.contents.withLock { contents in
                for modification in modifications where !contents.unfetchedZones.contains(modification.zoneID) {
                    contents.unfetchedZones.append(modification.zoneID)
                }
                for deletion in deletions {
                    contents.unfetchedZones.removeAll { $0 == deletion.zoneID }
                    contents.zoneTokens[deletion.zoneID] = nil
                }
                contents.databaseToken = token
            }
            if !modifications.isEmpty || !deletions.isEmpty {
                await emit(.fetchedDatabaseChanges(CKSyncEngine.Event.FetchedDatabaseChanges(modifications: modifications, deletions: deletions)))
            }
            await emitStateUpdate()
            moreComing = page.moreComing
        }
    }

    /// Pages one zone's changes from its stored token. A zone the server no longer has (or any
    /// other failure the engine does not retry) is reported in `didFetchRecordZoneChanges` and
    /// leaves the unfetched list.
    private func fetchRecordZoneChanges(_ zoneID: CKRecordZone.ID) async throws {
        await emit(.willFetchRecordZoneChanges(CKSyncEngine.Event.WillFetchRecordZoneChanges(zoneID: zoneID)))
        var token = state.contents.withLock { $0.zoneTokens[zoneID] }
        var failure: CKError?
        var moreComing = true
        while moreComing {
            let page: CKDatabase.ZoneChangesPage
            do {
                let since = token.map(CKServerChangeToken.init(value:))
                page = try await retrying { try await database.zoneChangesPage(zoneID, since: since, desiredKeys: nil, resultsLimit: nil) }
            } catch let error as CKError where error.code == .changeTokenExpired && token != nil {
                token = nil
                continue
            } catch let error as CKError where !error.isRetriedBySyncEngine && error.code != .operationCancelled {
                failure = error
                break
            }
            let modifications = page.changed.compactMap { _, result in (try? result.get()).map { CKDatabase.RecordZoneChange.Modification(record: $0) } }
            token = page.token.value
            state.contents.withLock { $0.zoneTokens[zoneID] = token }
            if !modifications.isEmpty || !page.deleted.isEmpty {
                await emit(.fetchedRecordZoneChanges(CKSyncEngine.Event.FetchedRecordZoneChanges(modifications: modifications, deletions: page.deleted)))
            }
            await emitStateUpdate()
            moreComing = page.moreComing
        }
        state.contents.withLock { contents in
            contents.unfetchedZones.removeAll { $0 == zoneID }
            if failure != nil { contents.zoneTokens[zoneID] = nil }
        }
        await emitStateUpdate()
        await emit(.didFetchRecordZoneChanges(CKSyncEngine.Event.DidFetchRecordZoneChanges(zoneID: zoneID, error: failure)))
    }
}

import Foundation
import StratusKit
import StratusModel

extension SyncEngine {
    /// Fetches what changed on the server since the stored tokens: zones created and deleted,
    /// then each synced zone's records, page by page. Each page and its token are stored in one
    /// transaction, so an interrupted fetch resumes where it stopped. Pending local changes are
    /// merged with what arrives, never overwritten.
    public func fetchChanges() async throws {
        try await serialized { engine in try await engine.fetchAll() }
    }

    func fetchAll() async throws {
        emit(.willFetchChanges)
        try await withRetries { try await fetchDatabaseChanges() }
        for zone in try store.zones() where !zone.needsCreate {
            try await withRetries { try await fetchZoneChanges(zone.zoneID) }
        }
        emit(.didFetchChanges)
    }

    static let databaseTokenKey = "databaseToken"

    /// Learns which zones exist and which were deleted. Without a token (first fetch, or after
    /// it expired) every zone that exists is listed, and tracked zones missing from the list are
    /// gone.
    func fetchDatabaseChanges() async throws {
        var token = try store.meta(Self.databaseTokenKey).map(CKServerChangeToken.init(storedText:))
        let fromScratch = token == nil
        var listed = Set<CKRecordZone.ID>()
        while true {
            let page:
                (
                    modifications: [CKDatabase.DatabaseChange.Modification], deletions: [CKDatabase.DatabaseChange.Deletion],
                    changeToken: CKServerChangeToken, moreComing: Bool
                )
            do {
                page = try await database.databaseChanges(since: token)
            } catch let error as CKError where error.code == .changeTokenExpired {
                emit(.changeTokenExpired(zoneID: nil))
                try store.transaction { try store.setMeta(Self.databaseTokenKey, nil) }
                return try await fetchDatabaseChanges()
            }
            var deleted: [(CKRecordZone.ID, Int)] = []
            try store.transaction {
                for modification in page.modifications
                where modification.zoneID.zoneName != CKRecordZone.ID.defaultZoneName
                    && configuration.zoneIDs.map({ $0.contains(modification.zoneID) }) != false
                {
                    listed.insert(modification.zoneID)
                    try store.addZone(modification.zoneID, needsCreate: false)
                }
                // A zone saved into locally since is not the deleted one: it is created again.
                for deletion in page.deletions where try store.zone(deletion.zoneID).map({ !$0.needsCreate }) == true {
                    deleted.append((deletion.zoneID, try store.removeZone(deletion.zoneID)))
                }
                try store.setMeta(Self.databaseTokenKey, page.changeToken.storedText)
            }
            for (zoneID, dropped) in deleted { emit(.zoneDeleted(zoneID: zoneID, droppedPendingChanges: dropped)) }
            token = page.changeToken
            if !page.moreComing { break }
        }
        if fromScratch {
            for zone in try store.zones() where !zone.needsCreate && !listed.contains(zone.zoneID) {
                let dropped = try store.transaction { try store.removeZone(zone.zoneID) }
                emit(.zoneDeleted(zoneID: zone.zoneID, droppedPendingChanges: dropped))
            }
        }
    }

    /// Fetches one zone's changes page by page. Without a token (new zone, fresh install,
    /// expired token) the server sends the records that exist now — never old deletions — and
    /// records the engine held that the refetch did not bring (and that have no pending
    /// change) are removed afterwards.
    func fetchZoneChanges(_ zoneID: CKRecordZone.ID) async throws {
        guard let zone = try store.zone(zoneID) else { return }
        var token = zone.changeToken.map(CKServerChangeToken.init(storedText:))
        let epoch: Int64? = token == nil ? try store.transaction { try store.nextEpoch() } : nil
        while true {
            let page:
                (
                    modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>],
                    deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool
                )
            do {
                page = try await database.recordZoneChanges(inZoneWith: zoneID, since: token, resultsLimit: configuration.fetchPageSize)
            } catch let error as CKError where error.code == .changeTokenExpired {
                emit(.changeTokenExpired(zoneID: zoneID))
                try store.transaction { try store.setZoneToken(zoneID, nil) }
                return try await fetchZoneChanges(zoneID)
            } catch let error as CKError where error.code == .zoneNotFound || error.code == .userDeletedZone {
                return try await forgetDeletedZones([zoneID])
            }
            var modified: [CKRecord.ID] = []
            var deleted: [CKRecord.ID] = []
            try store.transaction {
                for (id, result) in page.modificationResultsByID {
                    guard case .success(let modification) = result else { continue }
                    try applyServerVersion(modification.record, epoch: epoch)
                    modified.append(id)
                }
                for deletion in page.deletions {
                    try applyServerDeletion(deletion.recordID)
                    deleted.append(deletion.recordID)
                }
                try store.setZoneToken(zoneID, page.changeToken.storedText)
            }
            emit(.fetchedRecordZoneChanges(zoneID: zoneID, modified: modified, deleted: deleted))
            token = page.changeToken
            if !page.moreComing { break }
        }
        if let epoch {
            _ = try store.transaction { try store.removeUnseen(in: zoneID, epoch: epoch) }
        }
    }

    /// A record as the server has it now: taken as is, or merged when it has a pending change.
    func applyServerVersion(_ record: CKRecord, epoch: Int64?) throws {
        let id = record.recordID
        let document = record.archiveDocument
        guard try store.pendingVersion(id) != nil, let row = try store.storedRecord(id) else {
            try store.put(StoredRecord(recordID: id, recordType: record.recordType, local: document, server: document), seenEpoch: epoch)
            return
        }
        if row.server?["recordChangeTag"] != nil, row.server?["recordChangeTag"] == document["recordChangeTag"] {
            // The version the pending change is already based on (our own save coming back).
            try store.put(row, seenEpoch: epoch)
            return
        }
        try resolveConflict(id, server: record, seenEpoch: epoch)
    }

    func applyServerDeletion(_ id: CKRecord.ID) throws {
        if try store.pendingVersion(id) == nil {
            try store.removeRecord(id)
        } else {
            try resolveConflict(id, server: nil)
        }
    }

    /// Zones the server no longer has (deleted on another device, or by the user): their local
    /// records and pending changes go, and the app is told.
    func forgetDeletedZones(_ zoneIDs: Set<CKRecordZone.ID>) async throws {
        for zoneID in zoneIDs.sorted(by: { $0.zoneName < $1.zoneName }) {
            do {
                _ = try await database.recordZone(for: zoneID)
                continue // still there
            } catch let error as CKError where error.code == .zoneNotFound || error.code == .unknownItem || error.code == .userDeletedZone {
                let dropped = try store.transaction { try store.removeZone(zoneID) }
                emit(.zoneDeleted(zoneID: zoneID, droppedPendingChanges: dropped))
            }
        }
    }
}

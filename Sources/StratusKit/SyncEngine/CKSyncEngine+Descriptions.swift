import Foundation

// Apple's sync-engine contexts, options and batches are CustomStringConvertible, and apps log
// them (`logger.info("Fetching: \(context)")`, which OSLog's interpolation accepts only for
// CustomStringConvertible values). Descriptions name what a log reader needs: the reason, the
// scope, and counts rather than every record.

extension CKSyncEngine.SyncReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .scheduled: return "scheduled"
        case .manual: return "manual"
        }
    }
}

extension CKSyncEngine.FetchChangesOptions.Scope: CustomStringConvertible {
    public var description: String {
        switch self {
        case .all: return "all"
        case .allExcluding(let zoneIDs): return "allExcluding(\(zoneNames(zoneIDs)))"
        case .zoneIDs(let zoneIDs): return "zoneIDs(\(zoneNames(zoneIDs)))"
        }
    }
}

extension CKSyncEngine.SendChangesOptions.Scope: CustomStringConvertible {
    public var description: String {
        switch self {
        case .all: return "all"
        case .allExcluding(let zoneIDs): return "allExcluding(\(zoneNames(zoneIDs)))"
        case .zoneIDs(let zoneIDs): return "zoneIDs(\(zoneNames(zoneIDs)))"
        case .recordIDs(let recordIDs): return "recordIDs(\(recordIDs.map(\.recordName).joined(separator: ", ")))"
        }
    }
}

extension CKSyncEngine.FetchChangesOptions: CustomStringConvertible {
    public var description: String {
        let prioritized = prioritizedZoneIDs.isEmpty ? "" : ", prioritized: \(zoneNames(prioritizedZoneIDs))"
        return "FetchChangesOptions(scope: \(scope)\(prioritized))"
    }
}

extension CKSyncEngine.SendChangesOptions: CustomStringConvertible {
    public var description: String { "SendChangesOptions(scope: \(scope))" }
}

extension CKSyncEngine.FetchChangesContext: CustomStringConvertible {
    public var description: String { "FetchChangesContext(reason: \(reason), options: \(options))" }
}

extension CKSyncEngine.SendChangesContext: CustomStringConvertible {
    public var description: String { "SendChangesContext(reason: \(reason), options: \(options))" }
}

extension CKSyncEngine.RecordZoneChangeBatch: CustomStringConvertible {
    public var description: String {
        "RecordZoneChangeBatch(recordsToSave: \(recordsToSave.count), recordIDsToDelete: \(recordIDsToDelete.count), atomicByZone: \(atomicByZone))"
    }
}

private func zoneNames(_ zoneIDs: [CKRecordZone.ID]) -> String {
    zoneIDs.map(\.zoneName).joined(separator: ", ")
}

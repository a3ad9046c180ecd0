import Foundation
import StratusKit
import StratusModel

extension SyncEngine {
    /// A record has a pending local change and the server's version moved on (`server`; `nil`
    /// when the server deleted it). Asks the resolver, stores the outcome as the local version
    /// with the server's version as the new ancestor, and keeps the record queued unless the
    /// outcome already equals the server's version. Runs inside the caller's transaction.
    func resolveConflict(_ id: CKRecord.ID, server: CKRecord?, seenEpoch: Int64? = nil) throws {
        guard let row = try store.storedRecord(id) else { return }
        let conflict = SyncConflict(
            recordID: id, ancestor: row.server.flatMap(CKRecord.init(archiveDocument:)),
            local: row.local.flatMap(CKRecord.init(archiveDocument:)), server: server)
        let resolution = configuration.resolver.resolve(conflict)
        let serverDocument = server?.archiveDocument
        switch resolution {
        case .keep(let kept):
            let keptDocument = kept.archiveDocument
            if let server, kept.archivedValues == server.archivedValues {
                try store.put(
                    StoredRecord(recordID: id, recordType: row.recordType, local: serverDocument, server: serverDocument),
                    seenEpoch: seenEpoch)
                try store.dequeue(id)
            } else {
                try store.put(
                    StoredRecord(recordID: id, recordType: row.recordType, local: keptDocument, server: serverDocument),
                    seenEpoch: seenEpoch)
                try store.enqueue(id)
            }
        case .delete:
            if server == nil {
                try store.removeRecord(id)
                try store.dequeue(id)
            } else {
                try store.put(StoredRecord(recordID: id, recordType: row.recordType, local: nil, server: serverDocument), seenEpoch: seenEpoch)
                try store.enqueue(id)
            }
        }
        emit(.conflictResolved(recordID: id, resolution: resolution))
    }
}

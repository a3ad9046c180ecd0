import Foundation
import StratusKit

/// A record both this device and the server changed since the version they last agreed on.
public struct SyncConflict: Sendable {
    /// The record's ID.
    public let recordID: CKRecord.ID
    /// The last version both sides agreed on; `nil` when the record is new on both sides.
    public let ancestor: CKRecord?
    /// This device's version; `nil` when it was deleted here.
    public let local: CKRecord?
    /// The server's version; `nil` when it was deleted on the server.
    public let server: CKRecord?
}

/// What to keep after a conflict.
public enum SyncResolution: Sendable {
    /// Keep a record with these values (the engine saves them over the server's version).
    case keep(CKRecord)
    /// The record is deleted on both sides.
    case delete
}

/// Decides conflicts. The engine calls it when a fetch brings a server change to a record with a
/// pending local change, or when a send finds the server's version moved on.
public protocol SyncConflictResolver: Sendable {
    func resolve(_ conflict: SyncConflict) -> SyncResolution
}

/// The default resolver: a field-level three-way merge against the last version both sides
/// agreed on. A field changed on one side only takes that side's value; a field changed on both
/// sides to different values takes this device's value (the last device to sync wins that
/// field, and the other device fetches it); list fields changed on both sides are merged as
/// sets — elements either side added are kept, elements either side removed are dropped.
///
/// An edit beats a delete: a record edited on one side and deleted on the other is kept with the
/// edits (a delete made without seeing the other side's change should not destroy that change).
public struct FieldMergeResolver: SyncConflictResolver {
    public init() {}

    public func resolve(_ conflict: SyncConflict) -> SyncResolution {
        switch (conflict.local, conflict.server) {
        case (nil, nil): return .delete
        case (let local?, nil): return .keep(local)
        case (nil, let server?): return .keep(server)
        case (let local?, let server?):
            let merged = FieldMerge.merge(
                ancestor: conflict.ancestor?.archivedValues ?? [:],
                local: local.archivedValues, server: server.archivedValues)
            let result = server.copy() as! CKRecord
            for key in Set(result.archivedValues.keys).union(merged.keys) {
                result.setArchivedValue(merged[key], forKey: key)
            }
            return .keep(result)
        }
    }
}

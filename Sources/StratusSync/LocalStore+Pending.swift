import Foundation
import StratusKit
import StratusSQLValue

/// One entry of the pending-changes queue. What to send (save or delete) is read from the
/// record's row when the batch is built, so saving A, B, A queues [A, B] and save-then-delete
/// queues one delete.
struct PendingEntry {
    var recordID: CKRecord.ID
    var version: Int64
}

extension LocalStore {
    /// Queues (or re-queues) a record's change; a record already queued keeps its place and its
    /// version grows, so an in-flight send of the older version does not dequeue it.
    func enqueue(_ id: CKRecord.ID) throws {
        try run(
            """
            INSERT INTO pending (zone_name, owner_name, record_name) VALUES (?, ?, ?)
            ON CONFLICT (zone_name, owner_name, record_name) DO UPDATE SET version = pending.version + 1, parked = NULL
            """, Self.keyBinds(id))
    }

    /// The oldest queued changes that are not parked, at most `limit`.
    func pendingBatch(limit: Int) throws -> [PendingEntry] {
        try run(
            "SELECT zone_name, owner_name, record_name, version FROM pending WHERE parked IS NULL ORDER BY seq LIMIT ?",
            [.integer(Int64(limit))]
        ).map { row in
            PendingEntry(
                recordID: CKRecord.ID(
                    recordName: row[2].text ?? "",
                    zoneID: CKRecordZone.ID(zoneName: row[0].text ?? "", ownerName: row[1].text ?? "")),
                version: row[3].integer ?? 0)
        }
    }

    func pendingVersion(_ id: CKRecord.ID) throws -> Int64? {
        try run("SELECT version FROM pending WHERE zone_name = ? AND owner_name = ? AND record_name = ?", Self.keyBinds(id)).first?[0].integer
    }

    /// Removes a record's queue entry if it is still at `version` (no newer local change); true
    /// when it did.
    @discardableResult
    func dequeue(_ id: CKRecord.ID, ifVersion version: Int64) throws -> Bool {
        guard try pendingVersion(id) == version else { return false }
        try run("DELETE FROM pending WHERE zone_name = ? AND owner_name = ? AND record_name = ?", Self.keyBinds(id))
        return true
    }

    func dequeue(_ id: CKRecord.ID) throws {
        try run("DELETE FROM pending WHERE zone_name = ? AND owner_name = ? AND record_name = ?", Self.keyBinds(id))
    }

    /// Parks a change the server refused for good, with the reason the app is shown.
    func park(_ id: CKRecord.ID, reason: String) throws {
        try run("UPDATE pending SET parked = ? WHERE zone_name = ? AND owner_name = ? AND record_name = ?", [.text(reason)] + Self.keyBinds(id))
    }

    func unparkAll() throws { try run("UPDATE pending SET parked = NULL WHERE parked IS NOT NULL") }

    func pendingCount() throws -> (queued: Int, parked: Int) {
        let row = try run("SELECT count(*), count(parked) FROM pending").first
        return (Int(row?[0].integer ?? 0), Int(row?[1].integer ?? 0))
    }

    func pendingIDs() throws -> [CKRecord.ID] {
        try run("SELECT zone_name, owner_name, record_name FROM pending ORDER BY seq").map { row in
            CKRecord.ID(recordName: row[2].text ?? "", zoneID: CKRecordZone.ID(zoneName: row[0].text ?? "", ownerName: row[1].text ?? ""))
        }
    }
}

import Foundation
import StratusKit
import StratusModel
import StratusSQLValue

/// One record's row: what the app sees and the last version the server confirmed.
struct StoredRecord {
    var recordID: CKRecord.ID
    var recordType: String
    /// The app's version as an archive document; `nil` when deleted locally (delete pending).
    var local: JSONValue?
    /// The server's last confirmed version (the merge ancestor); `nil` when not on the server.
    var server: JSONValue?
}

extension LocalStore {
    static func keyBinds(_ id: CKRecord.ID) -> [SQLValue] {
        [.text(id.zoneID.zoneName), .text(id.zoneID.ownerName), .text(id.recordName)]
    }

    static func text(_ json: JSONValue?) -> SQLValue { json.map { .text($0.serializedString) } ?? .null }

    static func json(_ value: SQLValue) -> JSONValue? {
        guard case .text(let text) = value else { return nil }
        return try? JSONValue.parse(Data(text.utf8))
    }

    func storedRecord(_ id: CKRecord.ID) throws -> StoredRecord? {
        let rows = try run(
            "SELECT record_type, local, server FROM records WHERE zone_name = ? AND owner_name = ? AND record_name = ?",
            Self.keyBinds(id))
        guard let row = rows.first else { return nil }
        return StoredRecord(recordID: id, recordType: row[0].text ?? "", local: Self.json(row[1]), server: Self.json(row[2]))
    }

    /// Writes a record's row (insert or replace), keeping its refetch mark unless `seenEpoch` is given.
    func put(_ record: StoredRecord, seenEpoch: Int64? = nil) throws {
        // A record taken as the server has it holds one document twice: serialize it once.
        let local = Self.text(record.local)
        let server = record.server == record.local ? local : Self.text(record.server)
        try run(
            """
            INSERT INTO records (zone_name, owner_name, record_name, record_type, local, server, seen_epoch)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (zone_name, owner_name, record_name) DO UPDATE SET record_type = excluded.record_type,
                local = excluded.local, server = excluded.server,
                seen_epoch = CASE WHEN ? THEN excluded.seen_epoch ELSE records.seen_epoch END
            """,
            Self.keyBinds(record.recordID) + [
                .text(record.recordType), local, server,
                .integer(seenEpoch ?? 0), .integer(seenEpoch == nil ? 0 : 1),
            ])
    }

    func removeRecord(_ id: CKRecord.ID) throws {
        try run("DELETE FROM records WHERE zone_name = ? AND owner_name = ? AND record_name = ?", Self.keyBinds(id))
    }

    /// Local versions of the records of one type (every zone, or one), in pages so a large cache
    /// is never held in memory at once; `body` returns false to stop.
    func forEachLocal(type: String?, zoneID: CKRecordZone.ID?, pageSize: Int = 500, _ body: (JSONValue) throws -> Bool) throws {
        var after: Int64 = 0
        var filters = ["local IS NOT NULL", "rowid > ?"]
        var binds: [SQLValue] = []
        if let type { filters.append("record_type = ?"); binds.append(.text(type)) }
        if let zoneID {
            filters.append("zone_name = ? AND owner_name = ?")
            binds += [.text(zoneID.zoneName), .text(zoneID.ownerName)]
        }
        let sql = "SELECT rowid, local FROM records WHERE \(filters.joined(separator: " AND ")) ORDER BY rowid LIMIT \(pageSize)"
        while true {
            let rows = try run(sql, [.integer(after)] + binds)
            for row in rows {
                guard let document = Self.json(row[1]) else { continue }
                if try !body(document) { return }
            }
            guard rows.count == pageSize, let last = rows.last?[0].integer else { return }
            after = last
        }
    }

    /// Records of a zone that a from-scratch refetch did not see and that have no pending change:
    /// the server no longer has them.
    func removeUnseen(in zoneID: CKRecordZone.ID, epoch: Int64) throws -> Int {
        let zone: [SQLValue] = [.text(zoneID.zoneName), .text(zoneID.ownerName)]
        let count =
            try run(
                """
                SELECT count(*) FROM records r WHERE r.zone_name = ? AND r.owner_name = ? AND r.seen_epoch < ? AND r.server IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM pending p WHERE p.zone_name = r.zone_name AND p.owner_name = r.owner_name AND p.record_name = r.record_name)
                """, zone + [.integer(epoch)]
            ).first?[0].integer ?? 0
        try run(
            """
            DELETE FROM records WHERE zone_name = ? AND owner_name = ? AND seen_epoch < ? AND server IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM pending p WHERE p.zone_name = records.zone_name AND p.owner_name = records.owner_name
                              AND p.record_name = records.record_name)
            """, zone + [.integer(epoch)])
        return Int(count)
    }

    func recordCount() throws -> Int {
        Int(try run("SELECT count(*) FROM records WHERE local IS NOT NULL").first?[0].integer ?? 0)
    }
}

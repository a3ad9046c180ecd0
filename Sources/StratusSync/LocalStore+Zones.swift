import Foundation
import StratusKit
import StratusSQLValue

/// A zone the engine syncs.
struct ZoneState {
    var zoneID: CKRecordZone.ID
    var changeToken: String?
    var needsCreate: Bool
}

extension LocalStore {
    func zones() throws -> [ZoneState] {
        try run("SELECT zone_name, owner_name, change_token, needs_create FROM zones ORDER BY zone_name").map { row in
            ZoneState(
                zoneID: CKRecordZone.ID(zoneName: row[0].text ?? "", ownerName: row[1].text ?? ""),
                changeToken: row[2].text, needsCreate: row[3].integer == 1)
        }
    }

    func zone(_ id: CKRecordZone.ID) throws -> ZoneState? { try zones().first { $0.zoneID == id } }

    /// Starts tracking a zone; `needsCreate` when it was made locally and the server lacks it.
    func addZone(_ id: CKRecordZone.ID, needsCreate: Bool) throws {
        try run(
            """
            INSERT INTO zones (zone_name, owner_name, needs_create) VALUES (?, ?, ?)
            ON CONFLICT (zone_name, owner_name) DO UPDATE SET needs_create = zones.needs_create AND excluded.needs_create
            """, [.text(id.zoneName), .text(id.ownerName), .integer(needsCreate ? 1 : 0)])
    }

    func markZoneCreated(_ id: CKRecordZone.ID) throws {
        try run("UPDATE zones SET needs_create = 0 WHERE zone_name = ? AND owner_name = ?", [.text(id.zoneName), .text(id.ownerName)])
    }

    func setZoneToken(_ id: CKRecordZone.ID, _ token: String?) throws {
        try run(
            "UPDATE zones SET change_token = ? WHERE zone_name = ? AND owner_name = ?",
            [token.map { .text($0) } ?? .null, .text(id.zoneName), .text(id.ownerName)])
    }

    /// Forgets a zone the server deleted: its records and its pending changes. Returns how many
    /// pending changes were dropped.
    func removeZone(_ id: CKRecordZone.ID) throws -> Int {
        let zone: [SQLValue] = [.text(id.zoneName), .text(id.ownerName)]
        let dropped = try run("SELECT count(*) FROM pending WHERE zone_name = ? AND owner_name = ?", zone).first?[0].integer ?? 0
        try run("DELETE FROM pending WHERE zone_name = ? AND owner_name = ?", zone)
        try run("DELETE FROM records WHERE zone_name = ? AND owner_name = ?", zone)
        try run("DELETE FROM zones WHERE zone_name = ? AND owner_name = ?", zone)
        return Int(dropped)
    }

    func meta(_ key: String) throws -> String? {
        try run("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?[0].text
    }

    func setMeta(_ key: String, _ value: String?) throws {
        if let value {
            try run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [.text(key), .text(value)])
        } else {
            try run("DELETE FROM meta WHERE key = ?", [.text(key)])
        }
    }

    /// A new number for a from-scratch refetch (see `records.seen_epoch`).
    func nextEpoch() throws -> Int64 {
        let next = (Int64(try meta("epoch") ?? "0") ?? 0) + 1
        try setMeta("epoch", String(next))
        return next
    }
}

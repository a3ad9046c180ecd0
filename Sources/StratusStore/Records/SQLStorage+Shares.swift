import StratusEngine
import StratusModel

extension SQLStorageReader {
    func share(shortGUID: String) async throws -> ShareRow? {
        try await shares(where: "shares.short_guid = \(bind: shortGUID)").first
    }

    func shares(_ store: StoreKey, zoneName: String) async throws -> [ShareRow] {
        guard let id = try await storeID(store) else { return [] }
        return try await shares(where: "shares.store_id = \(bind: id) AND shares.zone_name = \(bind: zoneName)")
    }

    func zonesSharedWhole(_ store: StoreKey) async throws -> Set<String> {
        guard let id = try await storeID(store) else { return [] }
        // A zone-wide share is the one without a root (stored as an empty root name).
        let rows = try await sql.query("SELECT zone_name FROM shares WHERE store_id = \(bind: id) AND root_name = ''")
        return Set(rows.compactMap { $0[0].text })
    }

    func acceptedShares(container: String, environment: DatabaseEnvironment, userRecordName: String) async throws -> [ShareRow] {
        try await shares(
            where: """
                stores.container = \(bind: container) AND stores.environment = \(bind: environment.rawValue)
                AND shares.short_guid IN (SELECT short_guid FROM share_participants
                    WHERE user_record_name = \(bind: userRecordName) AND status = \(bind: AcceptanceStatus.accepted.rawValue))
                """)
    }

    /// Shares matching `condition` (over `shares` and `stores`), each with its participants.
    private func shares(where condition: SQLFragment) async throws -> [ShareRow] {
        let rows = try await sql.query(
            """
            SELECT shares.short_guid, stores.container, stores.environment, stores.owner, shares.zone_name, shares.record_name,
                   shares.root_name, shares.public_permission
            FROM shares JOIN stores ON stores.id = shares.store_id
            WHERE \(condition) ORDER BY shares.zone_name, shares.record_name
            """)
        var shares: [ShareRow] = []
        for row in rows {
            guard let guid = row[0].text, let environment = row[2].text.flatMap(DatabaseEnvironment.init(rawValue:)) else { continue }
            let root = row[6].text ?? ""
            shares.append(
                ShareRow(
                    store: StoreKey(container: row[1].text ?? "", environment: environment, scope: .private, owner: row[3].text ?? ""),
                    zoneName: row[4].text ?? "", recordName: row[5].text ?? "", rootRecordName: root.isEmpty ? nil : root,
                    shortGUID: guid, publicPermission: row[7].text.flatMap(SharePermission.init(rawValue:)) ?? .none,
                    participants: try await participants(shortGUID: guid)))
        }
        return shares
    }

    private func participants(shortGUID: String) async throws -> [ShareParticipant] {
        let rows = try await sql.query(
            """
            SELECT participant_id, user_record_name, email, phone, role, permission, status, added_ms
            FROM share_participants WHERE short_guid = \(bind: shortGUID) ORDER BY position
            """)
        return rows.map { row in
            func optional(_ index: Int) -> String? { row[index].text.flatMap { $0.isEmpty ? nil : $0 } }
            return ShareParticipant(
                participantID: row[0].text ?? "", userRecordName: optional(1), email: optional(2), phone: optional(3),
                role: row[4].text.flatMap(ParticipantRole.init(rawValue:)) ?? .user,
                permission: row[5].text.flatMap(SharePermission.init(rawValue:)) ?? .readOnly,
                status: row[6].text.flatMap(AcceptanceStatus.init(rawValue:)) ?? .invited,
                addedAt: row[7].integer ?? 0)
        }
    }
}

extension SQLStorageWriter {
    func saveShare(_ share: ShareRow) async throws {
        let id = try await ensureStore(share.store)
        try await sql.execute(
            """
            INSERT INTO shares (short_guid, store_id, zone_name, record_name, root_name, public_permission)
            VALUES (\(bind: share.shortGUID), \(bind: id), \(bind: share.zoneName), \(bind: share.recordName),
                    \(bind: share.rootRecordName ?? ""), \(bind: share.publicPermission.rawValue))
            ON CONFLICT (short_guid) DO UPDATE SET root_name = excluded.root_name, public_permission = excluded.public_permission
            """)
        try await sql.execute("DELETE FROM share_participants WHERE short_guid = \(bind: share.shortGUID)")
        let values: [SQLFragment] = share.participants.enumerated().map { position, participant in
            """
            (\(bind: share.shortGUID), \(bind: participant.participantID), \(bind: participant.userRecordName ?? ""),
             \(bind: participant.email ?? ""), \(bind: participant.phone ?? ""), \(bind: participant.role.rawValue),
             \(bind: participant.permission.rawValue), \(bind: participant.status.rawValue), \(bind: participant.addedAt), \(bind: Int64(position)))
            """
        }
        for chunk in values.chunked(100) {
            try await sql.execute(
                "INSERT INTO share_participants (short_guid, participant_id, user_record_name, email, phone, role, permission, status, added_ms, position) VALUES "
                    + SQLFragment.joined(chunk, separator: ", "))
        }
    }

    func deleteShare(shortGUID: String) async throws {
        try await sql.execute("DELETE FROM share_participants WHERE short_guid = \(bind: shortGUID)")
        try await sql.execute("DELETE FROM shares WHERE short_guid = \(bind: shortGUID)")
    }

    /// The shares of a zone being deleted go with it.
    func deleteShares(storeID: Int64, zoneName: String) async throws {
        let inZone: SQLFragment = "SELECT short_guid FROM shares WHERE store_id = \(bind: storeID) AND zone_name = \(bind: zoneName)"
        try await sql.execute("DELETE FROM share_participants WHERE short_guid IN (\(inZone))")
        try await sql.execute("DELETE FROM shares WHERE store_id = \(bind: storeID) AND zone_name = \(bind: zoneName)")
    }
}

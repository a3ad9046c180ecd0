import StratusEngine
import StratusModel

extension SQLStorageReader {
    func userAccounts(recordName: String, email: String) async throws -> [UserAccount] {
        try await sql.query(
            """
            \(unsafeRaw: userAccountColumns) WHERE user_record_name = \(bind: recordName)
            OR (email <> '' AND email = \(bind: email.lowercased())) ORDER BY container
            """
        ).map(decodeUserAccount)
    }

    func privateStores(container: String, userRecordName: String) async throws -> [StoreKey] {
        try await sql.query(
            """
            SELECT environment FROM stores WHERE container = \(bind: container) AND scope = \(bind: DatabaseScope.private.rawValue)
            AND owner = \(bind: userRecordName) ORDER BY environment
            """
        ).compactMap { row in
            row[0].text.flatMap(DatabaseEnvironment.init(rawValue:)).map {
                StoreKey(container: container, environment: $0, scope: .private, owner: userRecordName)
            }
        }
    }

    func recordPage(_ store: StoreKey, createdBy: String?, after position: RecordPosition?, limit: Int) async throws -> [RecordRow] {
        // Looked up without the writer's create-if-absent: a page of a store nobody wrote is empty.
        guard let id = try await committedStoreID(store) else { return [] }
        var statement: SQLFragment = "SELECT \(unsafeRaw: recordColumns) FROM records WHERE records.store_id = \(bind: id)"
        if let createdBy { statement.append(" AND records.created_by = \(bind: createdBy)") }
        if let position {
            statement.append(
                """
                 AND (records.zone_name > \(bind: position.zoneName)
                 OR (records.zone_name = \(bind: position.zoneName) AND records.record_name > \(bind: position.recordName)))
                """)
        }
        statement.append(" ORDER BY records.zone_name, records.record_name LIMIT \(bind: Int64(limit))")
        return try await sql.query(statement).map(decodeRecord)
    }

    func subscriptions(container: String, userRecordName: String) async throws -> [SubscriptionRow] {
        try await sql.query(
            """
            SELECT environment, scope, owner, user_record_name, subscription_id, definition FROM subscriptions
            WHERE container = \(bind: container) AND (user_record_name = \(bind: userRecordName) OR owner = \(bind: userRecordName))
            ORDER BY environment, scope, owner, created_ms, subscription_id
            """
        ).compactMap { row in
            guard let environment = row[0].text.flatMap(DatabaseEnvironment.init(rawValue:)),
                let scope = row[1].text.flatMap(DatabaseScope.init(rawValue:))
            else { return nil }
            return SubscriptionRow(
                store: StoreKey(container: container, environment: environment, scope: scope, owner: row[2].text ?? ""),
                userRecordName: row[3].text ?? "", subscriptionID: row[4].text ?? "",
                definition: try JSONValue.parse(row[5].text ?? "{}"))
        }
    }

    func shareParticipations(container: String, userRecordName: String) async throws -> [ShareParticipation] {
        try await sql.query(
            """
            SELECT shares.short_guid, stores.environment, stores.owner, shares.zone_name, shares.record_name,
                   share_participants.role, share_participants.permission, share_participants.status
            FROM share_participants JOIN shares ON shares.short_guid = share_participants.short_guid
            JOIN stores ON stores.id = shares.store_id
            WHERE stores.container = \(bind: container) AND share_participants.user_record_name = \(bind: userRecordName)
            ORDER BY shares.short_guid
            """
        ).compactMap { row in
            guard let environment = row[1].text.flatMap(DatabaseEnvironment.init(rawValue:)) else { return nil }
            return ShareParticipation(
                shortGUID: row[0].text ?? "", store: StoreKey(container: container, environment: environment, scope: .private, owner: row[2].text ?? ""),
                zoneName: row[3].text ?? "", recordName: row[4].text ?? "",
                role: row[5].text.flatMap(ParticipantRole.init(rawValue:)) ?? .user,
                permission: row[6].text.flatMap(SharePermission.init(rawValue:)) ?? .readOnly,
                status: row[7].text.flatMap(AcceptanceStatus.init(rawValue:)) ?? .invited)
        }
    }

    /// The store's id as committed, never creating it (unlike the writer's `storeID`).
    func committedStoreID(_ key: StoreKey) async throws -> Int64? {
        try await sql.query(
            """
            SELECT id FROM stores WHERE container = \(bind: key.container) AND environment = \(bind: key.environment.rawValue)
            AND scope = \(bind: key.scope.rawValue) AND owner = \(bind: key.owner)
            """
        ).first?[0].integer
    }
}

extension SQLStorageWriter {
    func eraseStore(_ store: StoreKey) async throws -> Int {
        guard try await committedStoreID(store) != nil, let id = try await storeID(store) else { return 0 }
        for row in try await sql.query("SELECT id FROM records WHERE store_id = \(bind: id)") {
            if let recordID = row[0].integer { try await sql.execute(dialect.fullTextDeleteRecord(recordID)) }
        }
        for table in ["record_refs", "list_values", "record_assets"] {
            try await sql.execute("DELETE FROM \(unsafeRaw: table) WHERE store_id = \(bind: id)")
        }
        try await sql.execute("DELETE FROM share_participants WHERE short_guid IN (SELECT short_guid FROM shares WHERE store_id = \(bind: id))")
        try await sql.execute("DELETE FROM shares WHERE store_id = \(bind: id)")
        let removed = try await count("DELETE FROM records WHERE store_id = \(bind: id)")
        try await sql.execute("DELETE FROM zones WHERE store_id = \(bind: id)")
        try await sql.execute("DELETE FROM changes WHERE store_id = \(bind: id)")
        try await sql.execute("DELETE FROM stores WHERE id = \(bind: id)")
        // No sequence of the gone store is written back at commit, and this process caches no id
        // for it (the user's record name is random and never comes back, so no store reuses the key).
        sequences[id] = nil
        storage.storeIDs.withLock { $0[store] = nil }
        return removed
    }

    func eraseAccount(container: String, userRecordName: String) async throws -> UserErasureCounts {
        var counts = UserErasureCounts()
        let tokens: SQLFragment = "SELECT digest FROM push_tokens WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)"
        counts.courierFrames = try await count("DELETE FROM notification_frames WHERE token_digest IN (\(tokens))")
        counts.queuedPushes = try await count("DELETE FROM push_queue WHERE token_digest IN (\(tokens))")
        try await sql.execute("DELETE FROM push_addresses WHERE digest IN (\(tokens))")
        counts.pushTokens = try await count("DELETE FROM push_tokens WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)")
        counts.webAuthTokens = try await count(
            """
            DELETE FROM web_auth_tokens WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)
            """)
        counts.subscriptions = try await count(
            """
            DELETE FROM subscriptions WHERE container = \(bind: container)
            AND (user_record_name = \(bind: userRecordName) OR owner = \(bind: userRecordName))
            """)
        counts.roleMemberships = try await count(
            """
            DELETE FROM role_members WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)
            """)
        counts.shareParticipations = try await count(
            """
            DELETE FROM share_participants WHERE user_record_name = \(bind: userRecordName) AND short_guid IN (
                SELECT shares.short_guid FROM shares JOIN stores ON stores.id = shares.store_id WHERE stores.container = \(bind: container))
            """)
        counts.accounts = try await count("DELETE FROM users WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)")
        return counts
    }

    func markUnreferencedBlobs(_ checksums: [String]) async throws -> [String] {
        var marked: [String] = []
        for chunk in checksums.chunked(100) {
            let list = SQLFragment.joined(chunk.map { checksum -> SQLFragment in "\(bind: checksum)" }, separator: ", ")
            marked += try await sql.query(
                """
                UPDATE blobs SET touched_ms = -1 WHERE checksum IN (\(list))
                AND NOT EXISTS (SELECT 1 FROM record_assets WHERE record_assets.checksum = blobs.checksum)
                RETURNING checksum
                """
            ).compactMap { $0[0].text }
        }
        return marked
    }

    /// Runs a DELETE and returns how many rows it removed.
    private func count(_ statement: SQLFragment) async throws -> Int {
        var returning = statement
        returning.append(" RETURNING 1")
        return try await sql.query(returning).count
    }
}

import StratusEngine
import StratusModel

extension SQLStorageReader {
    func pushAddresses(digests: [String]) async throws -> [String: PushAddress] {
        guard !digests.isEmpty else { return [:] }
        let rows = try await sql.query(
            """
            SELECT digest, transport, target, public_key, secret FROM push_addresses
            WHERE digest IN \(SQLFragment.bindList(digests.map { .text($0) }))
            """)
        var addresses: [String: PushAddress] = [:]
        for row in rows {
            if let digest = row[0].text, let address = decodePushAddress(row, from: 1) { addresses[digest] = address }
        }
        return addresses
    }

    func pushCredential(container: String, environment: DatabaseEnvironment, provider: String) async throws -> PushCredentialRow? {
        guard
            let row = try await sql.query(
                """
                SELECT settings FROM push_credentials WHERE container = \(bind: container)
                AND environment = \(bind: environment.rawValue) AND provider = \(bind: provider)
                """
            ).first, let settings = row[0].text
        else { return nil }
        return PushCredentialRow(container: container, environment: environment, provider: provider, settings: settings)
    }

    func hasDuePush(nowMilliseconds now: Int64) async throws -> Bool {
        !(try await sql.query(
            """
            SELECT 1 FROM push_queue WHERE next_attempt_ms <= \(bind: now) AND lease_until_ms < \(bind: now) LIMIT 1
            """
        ).isEmpty)
    }

    func pendingPushCount() async throws -> Int {
        Int(try await sql.query("SELECT COUNT(*) FROM push_queue").first?[0].integer ?? 0)
    }

    func pushDrops(limit: Int) async throws -> [PushDropRow] {
        try await sql.query(
            """
            SELECT token_digest, subscription_id, reason, at_ms FROM push_drops ORDER BY id DESC LIMIT \(bind: limit)
            """
        ).map { row in
            PushDropRow(
                tokenDigest: row[0].text ?? "", subscriptionID: row[1].text ?? "", reason: row[2].text ?? "",
                atMilliseconds: row[3].integer ?? 0)
        }
    }
}

/// A `push_addresses` row's transport, target, public_key and secret, starting at column `from`.
func decodePushAddress(_ row: SQLRow, from column: Int) -> PushAddress? {
    let target = row[column + 1].text ?? "", key = row[column + 2].text ?? "", secret = row[column + 3].text ?? ""
    switch row[column].text {
    case "apns": return .apns(deviceToken: target, environment: key)
    case "webpush": return .webPush(endpoint: target, p256dh: key, auth: secret)
    default: return nil
    }
}

/// Drop records older than this are removed as new ones are written.
let pushDropRetentionMilliseconds: Int64 = 7 * 24 * 3600 * 1000

extension SQLStorageWriter {
    func savePushAddress(digest: String, address: PushAddress) async throws {
        let (target, key, secret): (String, String, String) =
            switch address {
            case .apns(let token, let environment): (token, environment, "")
            case .webPush(let endpoint, let p256dh, let auth): (endpoint, p256dh, auth)
            }
        try await sql.execute(
            """
            INSERT INTO push_addresses (digest, transport, target, public_key, secret)
            VALUES (\(bind: digest), \(bind: address.transport), \(bind: target), \(bind: key), \(bind: secret))
            ON CONFLICT (digest) DO UPDATE SET transport = excluded.transport, target = excluded.target,
                public_key = excluded.public_key, secret = excluded.secret
            """)
    }

    func savePushCredential(_ credential: PushCredentialRow) async throws {
        try await sql.execute(
            """
            INSERT INTO push_credentials (container, environment, provider, settings, updated_ms)
            VALUES (\(bind: credential.container), \(bind: credential.environment.rawValue), \(bind: credential.provider),
                    \(bind: credential.settings), \(bind: nowMilliseconds()))
            ON CONFLICT (container, environment, provider) DO UPDATE SET settings = excluded.settings, updated_ms = excluded.updated_ms
            """)
    }

    func enqueuePush(
        tokenDigest: String, container: String, environment: DatabaseEnvironment, subscriptionID: String,
        payload: String, nowMilliseconds: Int64, expiresMilliseconds: Int64
    ) async throws {
        try await sql.execute(
            """
            INSERT INTO push_queue (token_digest, container, environment, subscription_id, payload, created_ms, expires_ms, next_attempt_ms)
            VALUES (\(bind: tokenDigest), \(bind: container), \(bind: environment.rawValue), \(bind: subscriptionID), \(bind: payload),
                    \(bind: nowMilliseconds), \(bind: expiresMilliseconds), \(bind: nowMilliseconds))
            """)
    }

    func claimPushes(
        holder: String, nowMilliseconds now: Int64, leaseUntil: Int64, limit: Int,
        excludingTokens: [String]
    ) async throws -> [PushDeliveryRow] {
        var due: SQLFragment = "next_attempt_ms <= \(bind: now) AND lease_until_ms < \(bind: now)"
        if !excludingTokens.isEmpty {
            due.append(" AND token_digest NOT IN \(SQLFragment.bindList(excludingTokens.map { .text($0) }))")
        }
        // The outer lease test is checked again against a row another instance updated meanwhile
        // (PostgreSQL), so a row leased elsewhere is not taken twice.
        let claimed = try await sql.query(
            """
            UPDATE push_queue SET lease_holder = \(bind: holder), lease_until_ms = \(bind: leaseUntil), attempts = attempts + 1
            WHERE id IN (SELECT MIN(id) FROM push_queue WHERE \(due) GROUP BY token_digest ORDER BY MIN(next_attempt_ms) LIMIT \(bind: limit))
            AND lease_until_ms < \(bind: now)
            RETURNING id
            """
        ).compactMap { $0[0].integer }
        guard !claimed.isEmpty else { return [] }
        let rows = try await sql.query(
            """
            SELECT q.id, q.token_digest, q.container, q.environment, q.subscription_id, q.payload, q.created_ms, q.expires_ms,
                   q.attempts, a.transport, a.target, a.public_key, a.secret
            FROM push_queue q JOIN push_addresses a ON a.digest = q.token_digest
            WHERE q.id IN \(SQLFragment.bindList(claimed.map { .integer($0) })) ORDER BY q.id
            """)
        return rows.compactMap { row in
            guard let id = row[0].integer, let address = decodePushAddress(row, from: 9) else { return nil }
            return PushDeliveryRow(
                id: id, tokenDigest: row[1].text ?? "", container: row[2].text ?? "",
                environment: DatabaseEnvironment(rawValue: row[3].text ?? "") ?? .development,
                subscriptionID: row[4].text ?? "", address: address, payload: row[5].text ?? "{}",
                createdMilliseconds: row[6].integer ?? 0, expiresMilliseconds: row[7].integer ?? 0,
                attempts: Int(row[8].integer ?? 0))
        }
    }

    func releasePushLeases() async throws {
        try await sql.execute("UPDATE push_queue SET lease_holder = '', lease_until_ms = 0 WHERE lease_holder <> ''")
    }

    func completePush(id: Int64, holder: String) async throws -> Bool {
        !(try await sql.query("DELETE FROM push_queue WHERE id = \(bind: id) AND lease_holder = \(bind: holder) RETURNING 1").isEmpty)
    }

    func retryPush(id: Int64, holder: String, tokenDigest: String, nextAttemptMilliseconds: Int64, error: String) async throws {
        try await sql.execute(
            """
            UPDATE push_queue SET lease_holder = '', lease_until_ms = 0, next_attempt_ms = \(bind: nextAttemptMilliseconds),
                last_error = \(bind: String(error.prefix(500)))
            WHERE id = \(bind: id) AND lease_holder = \(bind: holder)
            """)
        try await sql.execute(
            """
            UPDATE push_queue SET next_attempt_ms = \(bind: nextAttemptMilliseconds)
            WHERE token_digest = \(bind: tokenDigest) AND next_attempt_ms < \(bind: nextAttemptMilliseconds)
            """)
    }

    func dropPush(id: Int64, drop: PushDropRow) async throws {
        try await sql.execute("DELETE FROM push_queue WHERE id = \(bind: id)")
        try await recordPushDrops([drop])
    }

    func removePushToken(digest: String, reason: String, nowMilliseconds now: Int64) async throws -> Int {
        let subscriptions = try await sql.query("DELETE FROM push_queue WHERE token_digest = \(bind: digest) RETURNING subscription_id")
        try await recordPushDrops(
            subscriptions.map {
                PushDropRow(tokenDigest: digest, subscriptionID: $0[0].text ?? "", reason: reason, atMilliseconds: now)
            })
        try await sql.execute("DELETE FROM push_addresses WHERE digest = \(bind: digest)")
        try await sql.execute("DELETE FROM notification_frames WHERE token_digest = \(bind: digest)")
        try await sql.execute("DELETE FROM push_tokens WHERE digest = \(bind: digest)")
        return subscriptions.count
    }

    private func recordPushDrops(_ drops: [PushDropRow]) async throws {
        guard let newest = drops.map(\.atMilliseconds).max() else { return }
        for drop in drops {
            try await sql.execute(
                """
                INSERT INTO push_drops (token_digest, subscription_id, reason, at_ms)
                VALUES (\(bind: drop.tokenDigest), \(bind: drop.subscriptionID), \(bind: String(drop.reason.prefix(500))), \(bind: drop.atMilliseconds))
                """)
        }
        try await sql.execute("DELETE FROM push_drops WHERE at_ms < \(bind: newest - pushDropRetentionMilliseconds)")
    }
}

import StratusEngine
import StratusModel

extension SQLStorageReader {
    func subscriptions(_ store: StoreKey, userRecordName: String?) async throws -> [SubscriptionRow] {
        var statement: SQLFragment = """
            SELECT user_record_name, subscription_id, definition FROM subscriptions
            WHERE container = \(bind: store.container) AND environment = \(bind: store.environment.rawValue)
            AND scope = \(bind: store.scope.rawValue) AND owner = \(bind: store.owner)
            """
        if let userRecordName { statement.append(" AND user_record_name = \(bind: userRecordName)") }
        statement.append(" ORDER BY created_ms, subscription_id")
        return try await sql.query(statement).map { row in
            SubscriptionRow(
                store: store, userRecordName: row[0].text ?? "", subscriptionID: row[1].text ?? "",
                definition: try JSONValue.parse(row[2].text ?? "{}"))
        }
    }

    func pushToken(digest: String) async throws -> PushTokenRow? {
        try await sql.query("\(unsafeRaw: pushTokenColumns) WHERE digest = \(bind: digest)").first.map(decodePushToken)
    }

    func registeredPushTokens(container: String, environment: DatabaseEnvironment, userRecordName: String) async throws -> [PushTokenRow] {
        try await sql.query(
            """
            \(unsafeRaw: pushTokenColumns) WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue)
            AND user_record_name = \(bind: userRecordName) AND registered = 1
            """
        ).map(decodePushToken)
    }

    func oldestFrame(tokenDigest: String, notBefore: Int64) async throws -> CourierFrame? {
        guard
            let row = try await sql.query(
                """
                SELECT id, body FROM notification_frames WHERE token_digest = \(bind: tokenDigest) AND created_ms >= \(bind: notBefore)
                ORDER BY id LIMIT 1
                """
            ).first, let id = row[0].integer, let body = row[1].text
        else { return nil }
        return CourierFrame(id: id, body: body)
    }
}

let pushTokenColumns = "SELECT digest, container, environment, user_record_name, apns_environment, apns_token, registered FROM push_tokens"

func decodePushToken(_ row: SQLRow) -> PushTokenRow {
    PushTokenRow(
        digest: row[0].text ?? "", container: row[1].text ?? "",
        environment: DatabaseEnvironment(rawValue: row[2].text ?? "") ?? .development,
        userRecordName: row[3].text ?? "", apnsEnvironment: row[4].text ?? "", apnsToken: row[5].text ?? "",
        registered: (row[6].integer ?? 0) == 1)
}

extension SQLStorageWriter {
    func saveSubscription(_ subscription: SubscriptionRow) async throws {
        let store = subscription.store
        try await sql.execute(
            """
            INSERT INTO subscriptions (container, environment, scope, owner, user_record_name, subscription_id, definition, created_ms)
            VALUES (\(bind: store.container), \(bind: store.environment.rawValue), \(bind: store.scope.rawValue), \(bind: store.owner),
                    \(bind: subscription.userRecordName), \(bind: subscription.subscriptionID), \(bind: subscription.definition.serializedString),
                    \(bind: nowMilliseconds()))
            ON CONFLICT (container, environment, scope, owner, user_record_name, subscription_id)
            DO UPDATE SET definition = excluded.definition
            """)
    }

    func deleteSubscription(_ store: StoreKey, userRecordName: String, subscriptionID: String) async throws -> Bool {
        let rows = try await sql.query(
            """
            DELETE FROM subscriptions WHERE container = \(bind: store.container) AND environment = \(bind: store.environment.rawValue)
            AND scope = \(bind: store.scope.rawValue) AND owner = \(bind: store.owner)
            AND user_record_name = \(bind: userRecordName) AND subscription_id = \(bind: subscriptionID)
            RETURNING 1
            """)
        return !rows.isEmpty
    }

    func savePushToken(_ token: PushTokenRow) async throws {
        try await sql.execute(
            """
            INSERT INTO push_tokens (digest, container, environment, user_record_name, apns_environment, apns_token, registered, created_ms)
            VALUES (\(bind: token.digest), \(bind: token.container), \(bind: token.environment.rawValue), \(bind: token.userRecordName),
                    \(bind: token.apnsEnvironment), \(bind: token.apnsToken), \(bind: token.registered ? 1 : 0), \(bind: nowMilliseconds()))
            ON CONFLICT (digest) DO UPDATE SET container = excluded.container, environment = excluded.environment,
                user_record_name = excluded.user_record_name, apns_environment = excluded.apns_environment, registered = excluded.registered
            """)
    }

    func enqueueFrame(tokenDigest: String, body: String, now: Int64, keep: Int) async throws {
        try await sql.execute(
            """
            INSERT INTO notification_frames (token_digest, created_ms, body) VALUES (\(bind: tokenDigest), \(bind: now), \(bind: body))
            """)
        // Bounded queue: everything older than the newest `keep` frames of this token goes.
        try await sql.execute(
            """
            DELETE FROM notification_frames WHERE token_digest = \(bind: tokenDigest) AND id <= (
                SELECT id FROM notification_frames WHERE token_digest = \(bind: tokenDigest) ORDER BY id DESC LIMIT 1 OFFSET \(bind: keep))
            """)
    }

    func takeFrame(tokenDigest: String, notBefore: Int64) async throws -> String? {
        try await sql.execute("DELETE FROM notification_frames WHERE token_digest = \(bind: tokenDigest) AND created_ms < \(bind: notBefore)")
        guard
            let row = try await sql.query(
                """
                SELECT id, body FROM notification_frames WHERE token_digest = \(bind: tokenDigest) ORDER BY id LIMIT 1
                """
            ).first, let id = row[0].integer
        else { return nil }
        try await sql.execute("DELETE FROM notification_frames WHERE id = \(bind: id)")
        return row[1].text
    }

    func deleteFrame(tokenDigest: String, id: Int64) async throws {
        try await sql.execute("DELETE FROM notification_frames WHERE token_digest = \(bind: tokenDigest) AND id = \(bind: id)")
    }
}

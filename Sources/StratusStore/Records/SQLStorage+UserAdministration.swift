import StratusEngine

extension SQLStorageReader {
    func pushTokens(container: String, userRecordName: String) async throws -> [PushTokenRow] {
        try await sql.query(
            """
            \(unsafeRaw: pushTokenColumns) WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)
            ORDER BY created_ms, digest
            """
        ).map(decodePushToken)
    }

    func liveWebSessionCount(container: String, userRecordName: String, nowMilliseconds: Int64) async throws -> Int {
        Int(
            try await sql.query(
                """
                SELECT COUNT(*) FROM web_auth_tokens WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)
                AND (expires_ms = 0 OR expires_ms > \(bind: nowMilliseconds))
                """
            ).first?[0].integer ?? 0)
    }
}

extension SQLStorageWriter {
    func removeWebSessions(container: String, userRecordName: String) async throws -> Int {
        try await sql.query(
            """
            DELETE FROM web_auth_tokens WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName) RETURNING 1
            """
        ).count
    }
}

import StratusEngine

extension SQLStorageReader {
    func consoleOperator(email: String) async throws -> ConsoleOperator? {
        try await sql.query("SELECT email, password_hash, created_ms FROM console_operators WHERE email = \(bind: email)")
            .first.map(Self.consoleOperator)
    }

    func consoleOperators() async throws -> [ConsoleOperator] {
        try await sql.query("SELECT email, password_hash, created_ms FROM console_operators ORDER BY email").map(Self.consoleOperator)
    }

    func consoleSession(digest: String) async throws -> ConsoleSession? {
        guard let row = try await sql.query("SELECT email, csrf, expires_ms FROM console_sessions WHERE digest = \(bind: digest)").first else {
            return nil
        }
        return ConsoleSession(email: row[0].text ?? "", csrfToken: row[1].text ?? "", expiresMilliseconds: row[2].integer ?? 0)
    }

    func consoleAudit(limit: Int) async throws -> [ConsoleAuditEntry] {
        try await sql.query(
            """
            SELECT at_ms, operator, container, action, detail FROM console_audit ORDER BY at_ms DESC, id DESC LIMIT \(bind: Int64(limit))
            """
        ).map { row in
            ConsoleAuditEntry(
                atMilliseconds: row[0].integer ?? 0, operatorEmail: row[1].text ?? "", container: row[2].text ?? "",
                action: row[3].text ?? "", detail: row[4].text ?? "")
        }
    }

    func containerIdentifiers() async throws -> [String] {
        try await sql.query("SELECT identifier FROM containers ORDER BY identifier").compactMap { $0[0].text }
    }

    func userAccounts(container: String, limit: Int) async throws -> [UserAccount] {
        try await sql.query(
            """
            \(unsafeRaw: userAccountColumns) WHERE container = \(bind: container) ORDER BY user_record_name LIMIT \(bind: Int64(limit))
            """
        ).map(decodeUserAccount)
    }

    static func consoleOperator(_ row: SQLRow) -> ConsoleOperator {
        ConsoleOperator(email: row[0].text ?? "", passwordHash: row[1].text ?? "", createdMilliseconds: row[2].integer ?? 0)
    }
}

extension SQLStorageWriter {
    func saveConsoleOperator(_ account: ConsoleOperator) async throws {
        try await sql.execute(
            """
            INSERT INTO console_operators (email, password_hash, created_ms)
            VALUES (\(bind: account.email), \(bind: account.passwordHash), \(bind: account.createdMilliseconds))
            ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash
            """)
    }

    func addConsoleSession(digest: String, session: ConsoleSession) async throws {
        try await sql.execute(
            """
            INSERT INTO console_sessions (digest, email, csrf, expires_ms)
            VALUES (\(bind: digest), \(bind: session.email), \(bind: session.csrfToken), \(bind: session.expiresMilliseconds))
            """)
    }

    func removeConsoleSession(digest: String) async throws {
        try await sql.execute("DELETE FROM console_sessions WHERE digest = \(bind: digest)")
    }

    func removeExpiredConsoleSessions(nowMilliseconds: Int64) async throws {
        try await sql.execute("DELETE FROM console_sessions WHERE expires_ms < \(bind: nowMilliseconds)")
        try await sql.execute("DELETE FROM console_links WHERE expires_ms < \(bind: nowMilliseconds)")
    }

    func addConsoleLink(digest: String, email: String, expiresMilliseconds: Int64) async throws {
        try await sql.execute(
            """
            INSERT INTO console_links (digest, email, expires_ms) VALUES (\(bind: digest), \(bind: email), \(bind: expiresMilliseconds))
            """)
    }

    func takeConsoleLink(digest: String, nowMilliseconds: Int64) async throws -> String? {
        let row = try await sql.query("SELECT email, expires_ms FROM console_links WHERE digest = \(bind: digest)").first
        try await sql.execute("DELETE FROM console_links WHERE digest = \(bind: digest)")
        guard let row, (row[1].integer ?? 0) >= nowMilliseconds else { return nil }
        return row[0].text
    }

    func appendConsoleAudit(_ entry: ConsoleAuditEntry, id: String) async throws {
        try await sql.execute(
            """
            INSERT INTO console_audit (id, at_ms, operator, container, action, detail)
            VALUES (\(bind: id), \(bind: entry.atMilliseconds), \(bind: entry.operatorEmail), \(bind: entry.container),
                    \(bind: entry.action), \(bind: entry.detail))
            """)
    }
}

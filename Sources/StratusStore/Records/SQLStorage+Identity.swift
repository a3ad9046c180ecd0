import StratusEngine
import StratusModel

extension SQLStorageReader {
    func apiToken(digest: String) async throws -> APITokenRow? {
        try await sql.query("\(unsafeRaw: apiTokenColumns) WHERE digest = \(bind: digest)").first.map(decodeAPIToken)
    }

    func apiTokens(container: String) async throws -> [APITokenRow] {
        try await sql.query("\(unsafeRaw: apiTokenColumns) WHERE container = \(bind: container) ORDER BY created_ms, digest").map(decodeAPIToken)
    }

    func serverKey(id: String) async throws -> ServerKeyRow? {
        try await sql.query("\(unsafeRaw: serverKeyColumns) WHERE key_id = \(bind: id)").first.map(decodeServerKey)
    }

    func serverKeys(container: String) async throws -> [ServerKeyRow] {
        try await sql.query("\(unsafeRaw: serverKeyColumns) WHERE container = \(bind: container) ORDER BY created_ms, key_id").map(decodeServerKey)
    }

    func userAccount(container: String, userRecordName: String) async throws -> UserAccount? {
        try await sql.query("\(unsafeRaw: userAccountColumns) WHERE container = \(bind: container) AND user_record_name = \(bind: userRecordName)")
            .first.map(decodeUserAccount)
    }

    func userAccount(container: String, email: String) async throws -> UserAccount? {
        guard !email.isEmpty else { return nil }
        return try await sql.query("\(unsafeRaw: userAccountColumns) WHERE container = \(bind: container) AND email = \(bind: email.lowercased())")
            .first.map(decodeUserAccount)
    }

    func userAccount(container: String, identitySubject: String) async throws -> UserAccount? {
        guard !identitySubject.isEmpty else { return nil }
        return try await sql.query("\(unsafeRaw: userAccountColumns) WHERE container = \(bind: container) AND identity_subject = \(bind: identitySubject)")
            .first.map(decodeUserAccount)
    }

    func discoverableUsers(container: String, limit: Int) async throws -> [UserAccount] {
        try await sql.query(
            """
            \(unsafeRaw: userAccountColumns) WHERE container = \(bind: container) AND discoverable = 1
            ORDER BY user_record_name LIMIT \(bind: Int64(limit))
            """
        ).map(decodeUserAccount)
    }

    func webSession(digest: String, container: String) async throws -> WebSession? {
        let rows = try await sql.query(
            """
            SELECT users.container, users.user_record_name, users.name, web_auth_tokens.expires_ms, web_auth_tokens.lifetime_ms
            FROM web_auth_tokens
            JOIN users ON users.container = web_auth_tokens.container AND users.user_record_name = web_auth_tokens.user_record_name
            WHERE web_auth_tokens.digest = \(bind: digest) AND web_auth_tokens.container = \(bind: container)
            """)
        return rows.first.map { row in
            WebSession(
                user: UserRow(container: row[0].text ?? "", userRecordName: row[1].text ?? "", name: row[2].text ?? ""),
                expiresMilliseconds: row[3].integer ?? 0, lifetimeMilliseconds: row[4].integer ?? 0)
        }
    }

    func securityRoles(container: String, environment: DatabaseEnvironment) async throws -> [String] {
        try await sql.query(
            """
            SELECT name FROM security_roles WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue) ORDER BY name
            """
        ).compactMap { $0[0].text }
    }

    func roles(of userRecordName: String, container: String, environment: DatabaseEnvironment) async throws -> Set<String> {
        Set(
            try await sql.query(
                """
                SELECT role FROM role_members WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue)
                AND user_record_name = \(bind: userRecordName)
                """
            ).compactMap { $0[0].text })
    }

    func grants(container: String, environment: DatabaseEnvironment) async throws -> [GrantRow] {
        try await sql.query(
            """
            SELECT record_type, role, permissions FROM record_type_grants
            WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue) ORDER BY record_type, role
            """
        ).map { row in
            let permissions = (row[2].text ?? "").split(separator: ",").compactMap { RecordPermission(rawValue: String($0)) }
            return GrantRow(recordType: row[0].text ?? "", role: row[1].text ?? "", permissions: Set(permissions))
        }
    }
}

let apiTokenColumns = "SELECT digest, container, allowed_origins, callback_url, created_ms FROM api_tokens"
let serverKeyColumns = "SELECT key_id, container, public_key, act_as_users, created_ms FROM server_keys"
let userAccountColumns = "SELECT container, user_record_name, name, email, password_hash, discoverable, identity_subject FROM users"

func decodeAPIToken(_ row: SQLRow) -> APITokenRow {
    let callback = row[3].text ?? ""
    return APITokenRow(
        id: String((row[0].text ?? "").prefix(16)), container: row[1].text ?? "",
        allowedOrigins: (row[2].text ?? "*").split(separator: " ").map(String.init),
        callbackURL: callback.isEmpty ? nil : callback, createdMilliseconds: row[4].integer ?? 0)
}

func decodeServerKey(_ row: SQLRow) -> ServerKeyRow {
    ServerKeyRow(
        keyID: row[0].text ?? "", container: row[1].text ?? "", publicKeyPEM: row[2].text ?? "",
        actAsUsers: (row[3].integer ?? 0) == 1, createdMilliseconds: row[4].integer ?? 0)
}

func decodeUserAccount(_ row: SQLRow) -> UserAccount {
    UserAccount(
        user: UserRow(container: row[0].text ?? "", userRecordName: row[1].text ?? "", name: row[2].text ?? ""),
        email: row[3].text ?? "", passwordHash: row[4].text ?? "", discoverable: (row[5].integer ?? 0) == 1,
        identitySubject: row[6].text ?? "")
}

extension SQLStorageWriter {
    func setAPITokenSettings(digest: String, allowedOrigins: [String], callbackURL: String?) async throws {
        try await sql.execute(
            """
            UPDATE api_tokens SET allowed_origins = \(bind: allowedOrigins.joined(separator: " ")), callback_url = \(bind: callbackURL ?? "")
            WHERE digest = \(bind: digest)
            """)
    }

    func revokeAPIToken(container: String, id: String) async throws -> Bool {
        // The handle is a digest prefix of fixed length, so LIKE cannot match more than intended.
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return false }
        let rows = try await sql.query(
            """
            DELETE FROM api_tokens WHERE container = \(bind: container) AND substr(digest, 1, 16) = \(bind: id.lowercased()) RETURNING 1
            """)
        return !rows.isEmpty
    }

    func addServerKey(_ key: ServerKeyRow) async throws {
        try await sql.execute(
            """
            INSERT INTO server_keys (key_id, container, public_key, act_as_users, created_ms)
            VALUES (\(bind: key.keyID), \(bind: key.container), \(bind: key.publicKeyPEM), \(bind: Int64(key.actAsUsers ? 1 : 0)), \(bind: key.createdMilliseconds))
            """)
    }

    func revokeServerKey(container: String, keyID: String) async throws -> Bool {
        !(try await sql.query("DELETE FROM server_keys WHERE container = \(bind: container) AND key_id = \(bind: keyID) RETURNING 1").isEmpty)
    }

    func saveUserAccount(_ account: UserAccount) async throws {
        try await sql.execute(
            """
            UPDATE users SET name = \(bind: account.user.name), email = \(bind: account.email.lowercased()),
                password_hash = \(bind: account.passwordHash), discoverable = \(bind: Int64(account.discoverable ? 1 : 0)),
                identity_subject = \(bind: account.identitySubject)
            WHERE container = \(bind: account.user.container) AND user_record_name = \(bind: account.user.userRecordName)
            """)
    }

    func addWebSession(
        digest: String, container: String, userRecordName: String, expiresMilliseconds: Int64,
        lifetimeMilliseconds: Int64
    ) async throws {
        try await sql.execute(
            """
            INSERT INTO web_auth_tokens (digest, container, user_record_name, created_ms, expires_ms, lifetime_ms)
            VALUES (\(bind: digest), \(bind: container), \(bind: userRecordName), \(bind: nowMilliseconds()),
                    \(bind: expiresMilliseconds), \(bind: lifetimeMilliseconds))
            """)
    }

    func renewWebSession(digest: String, expiresMilliseconds: Int64) async throws {
        try await sql.execute("UPDATE web_auth_tokens SET expires_ms = \(bind: expiresMilliseconds) WHERE digest = \(bind: digest)")
    }

    func removeWebSession(digest: String) async throws -> Bool {
        !(try await sql.query("DELETE FROM web_auth_tokens WHERE digest = \(bind: digest) RETURNING 1").isEmpty)
    }

    func createSecurityRole(_ name: String, container: String, environment: DatabaseEnvironment) async throws {
        try await sql.execute(
            """
            INSERT INTO security_roles (container, environment, name, created_ms)
            VALUES (\(bind: container), \(bind: environment.rawValue), \(bind: name), \(bind: nowMilliseconds()))
            ON CONFLICT (container, environment, name) DO NOTHING
            """)
    }

    func assignRole(_ role: String, to userRecordName: String, container: String, environment: DatabaseEnvironment) async throws {
        try await sql.execute(
            """
            INSERT INTO role_members (container, environment, role, user_record_name)
            VALUES (\(bind: container), \(bind: environment.rawValue), \(bind: role), \(bind: userRecordName))
            ON CONFLICT (container, environment, role, user_record_name) DO NOTHING
            """)
    }

    func saveGrant(_ grant: GrantRow, container: String, environment: DatabaseEnvironment) async throws {
        let permissions = grant.permissions.sorted().map(\.rawValue).joined(separator: ",")
        try await sql.execute(
            """
            INSERT INTO record_type_grants (container, environment, record_type, role, permissions)
            VALUES (\(bind: container), \(bind: environment.rawValue), \(bind: grant.recordType), \(bind: grant.role), \(bind: permissions))
            ON CONFLICT (container, environment, record_type, role) DO UPDATE SET permissions = excluded.permissions
            """)
    }
}

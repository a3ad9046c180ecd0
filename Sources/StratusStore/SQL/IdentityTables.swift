/// Migration 4: identity and access. API token settings (allowed origins, sign-in callback),
/// user accounts (email, password hash, discoverability, OpenID Connect subject), web auth token
/// lifetimes, server-to-server keys, security roles and grants.
public enum IdentityTables {
    public static let statements: [String] = [
        // '*' keeps tokens made before this migration working from every origin, as they did.
        "ALTER TABLE api_tokens ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '*'",
        "ALTER TABLE api_tokens ADD COLUMN callback_url TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE users ADD COLUMN email TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE users ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN identity_subject TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX users_by_email ON users (container, email)",
        "CREATE INDEX users_by_subject ON users (container, identity_subject)",
        // 0: an operator token (from `stratus user create`), which neither expires nor rotates.
        "ALTER TABLE web_auth_tokens ADD COLUMN expires_ms BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE web_auth_tokens ADD COLUMN lifetime_ms BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX web_auth_tokens_by_user ON web_auth_tokens (container, user_record_name)",
        """
        CREATE TABLE server_keys (
            key_id TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            public_key TEXT NOT NULL,
            act_as_users INTEGER NOT NULL,
            created_ms BIGINT NOT NULL)
        """,
        """
        CREATE TABLE security_roles (
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            name TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            PRIMARY KEY (container, environment, name))
        """,
        """
        CREATE TABLE role_members (
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            role TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            PRIMARY KEY (container, environment, role, user_record_name))
        """,
        """
        CREATE TABLE record_type_grants (
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            record_type TEXT NOT NULL,
            role TEXT NOT NULL,
            permissions TEXT NOT NULL,
            PRIMARY KEY (container, environment, record_type, role))
        """,
    ]
}

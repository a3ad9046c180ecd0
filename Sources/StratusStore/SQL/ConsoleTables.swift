/// Migration 11, on every backend: the web console's own accounts, kept apart from app users.
/// - `console_operators`: who may sign in to the console (email, bcrypt hash; an empty hash
///   signs in only through a one-time link).
/// - `console_sessions`: signed-in browsers, by the SHA-256 of their cookie, with the CSRF token
///   their forms must carry and when they stop working.
/// - `console_links`: one-time sign-in links (SHA-256 of the link's secret) and their expiry.
/// - `console_audit`: every change made in the console: who, what, when.
public enum ConsoleTables {
    public static let version = 11

    public static let statements: [String] = [
        "CREATE TABLE console_operators (email TEXT NOT NULL PRIMARY KEY, password_hash TEXT NOT NULL, created_ms BIGINT NOT NULL)",
        """
        CREATE TABLE console_sessions (
            digest TEXT NOT NULL PRIMARY KEY,
            email TEXT NOT NULL,
            csrf TEXT NOT NULL,
            expires_ms BIGINT NOT NULL)
        """,
        "CREATE TABLE console_links (digest TEXT NOT NULL PRIMARY KEY, email TEXT NOT NULL, expires_ms BIGINT NOT NULL)",
        """
        CREATE TABLE console_audit (
            id TEXT NOT NULL PRIMARY KEY,
            at_ms BIGINT NOT NULL,
            operator TEXT NOT NULL,
            container TEXT NOT NULL,
            action TEXT NOT NULL,
            detail TEXT NOT NULL)
        """,
        "CREATE INDEX console_audit_by_time ON console_audit (at_ms)",
    ]
}

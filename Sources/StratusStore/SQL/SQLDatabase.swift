/// Runs statements on one connection, inside the transaction the caller opened.
public protocol SQLExecutor: Sendable {
    func query(_ sql: SQLFragment) async throws -> [SQLRow]
    func execute(_ sql: SQLFragment) async throws
    /// Runs a statement once the transaction has committed, outside it (a concurrent index build),
    /// or now when the backend has no such need.
    func executeAfterCommit(_ sql: SQLFragment) async throws
}

/// A backend's connections: serialized write transactions, concurrent read transactions.
public protocol SQLDatabase: Sendable {
    var dialect: any SQLDialect { get }
    /// Runs `body` inside one read transaction (a consistent snapshot).
    func withReadTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` inside one write transaction; commits if it returns, rolls back if it throws.
    func withWriteTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    func close() async throws
}

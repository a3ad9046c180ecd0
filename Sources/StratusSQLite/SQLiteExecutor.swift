import NIOCore
import SQLiteNIO
import StratusStore

/// Runs statements on one sqlite-nio connection, converting values both ways.
struct SQLiteExecutor: SQLExecutor {
    let connection: SQLiteConnection

    func query(_ sql: SQLFragment) async throws -> [SQLRow] {
        let rows = try await connection.query(sql.text, sql.binds.map(SQLiteExecutor.sqliteData))
        return rows.map { row in SQLRow(values: row.columns.map { SQLiteExecutor.value($0.data) }) }
    }

    func execute(_ sql: SQLFragment) async throws {
        _ = try await connection.query(sql.text, sql.binds.map(SQLiteExecutor.sqliteData))
    }

    static func sqliteData(_ value: SQLValue) -> SQLiteData {
        switch value {
        case .null: return .null
        case .integer(let number): return .integer(SQLiteInt64(number))
        case .real(let number): return .float(number)
        case .text(let text): return .text(text)
        case .blob(let bytes): return .blob(ByteBuffer(bytes: bytes))
        }
    }

    static func value(_ data: SQLiteData) -> SQLValue {
        switch data {
        case .null: return .null
        case .integer(let number): return .integer(Int64(number))
        case .float(let number): return .real(number)
        case .text(let text): return .text(text)
        case .blob(let buffer): return .blob(Array(buffer.readableBytesView))
        }
    }
}

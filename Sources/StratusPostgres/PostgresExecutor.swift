import Logging
import NIOCore
import PostgresNIO
import StratusStore

/// Runs the store's statements on one PostgreSQL connection inside the transaction that holds it.
/// Each statement is one round trip (parse, bind and execute sent together).
final class PostgresExecutor: SQLExecutor, @unchecked Sendable {
    // @unchecked: confined to the transaction that created it, like the store's readers.
    let connection: PostgresConnection
    let logger: Logger
    /// Statements to run once the transaction has committed (`executeAfterCommit`).
    private(set) var afterCommit: [SQLFragment] = []

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func query(_ sql: SQLFragment) async throws -> [SQLRow] {
        let rows = try await connection.query(PostgresExecutor.statement(sql), logger: logger)
        var result: [SQLRow] = []
        for try await row in rows {
            result.append(SQLRow(values: row.map(PostgresExecutor.value)))
        }
        return result
    }

    func execute(_ sql: SQLFragment) async throws {
        _ = try await query(sql)
    }

    func executeAfterCommit(_ sql: SQLFragment) async throws {
        afterCommit.append(sql)
    }

    /// The store writes `?` placeholders; PostgreSQL numbers them (`$1`, `$2`, …). A `?` inside a
    /// quoted literal or identifier is left alone.
    static func statement(_ sql: SQLFragment) -> PostgresQuery {
        var text = ""
        text.reserveCapacity(sql.text.utf8.count + sql.binds.count * 2)
        var number = 0
        var quote: Character? = nil
        for character in sql.text {
            if let open = quote {
                if character == open { quote = nil }
                text.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                text.append(character)
            } else if character == "?" {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        var binds = PostgresBindings(capacity: sql.binds.count)
        for value in sql.binds {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let string): binds.append(string)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    /// A cell as the store's `SQLValue`: integers, floats, bytes and NULL by type, anything else
    /// (text, names, JSON) as text.
    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return (try? cell.decode(Int64.self)).map(SQLValue.integer) ?? .null
        case .int4: return (try? cell.decode(Int32.self)).map { .integer(Int64($0)) } ?? .null
        case .int2: return (try? cell.decode(Int16.self)).map { .integer(Int64($0)) } ?? .null
        case .bool: return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .float8: return (try? cell.decode(Double.self)).map(SQLValue.real) ?? .null
        case .float4: return (try? cell.decode(Float.self)).map { .real(Double($0)) } ?? .null
        case .bytea: return (try? cell.decode(ByteBuffer.self)).map { .blob(Array($0.readableBytesView)) } ?? .null
        case .void: return .null
        default: return (try? cell.decode(String.self)).map(SQLValue.text) ?? .null
        }
    }
}

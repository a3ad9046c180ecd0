import Logging
import NIOCore
import PostgresNIO
import StratusStore
import Synchronization

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
        try await GuardedStatement.rows(PostgresExecutor.statement(sql), on: connection, logger: logger)
    }

    func execute(_ sql: SQLFragment) async throws {
        _ = try await query(sql)
    }

    func executeAfterCommit(_ sql: SQLFragment) async throws {
        afterCommit.append(sql)
    }

    /// The store writes `?` placeholders; PostgreSQL numbers them (`$1`, `$2`, …). A `?` inside a
    /// quoted literal or identifier is left alone. Statement texts repeat (only binds change), so
    /// each is rewritten once and kept: the rewrite ran on every statement of every request.
    static func statement(_ sql: SQLFragment) -> PostgresQuery {
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
        return PostgresQuery(unsafeSQL: numbered(sql.text), binds: binds)
    }

    /// Rewritten texts; cleared when it grows past `numberedLimit` (statements with IN lists of
    /// every length are the only unbounded kind).
    private static let numberedTexts = Mutex<[String: String]>([:])
    private static let numberedLimit = 4096

    static func numbered(_ text: String) -> String {
        if let known = numberedTexts.withLock({ $0[text] }) { return known }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 16)
        var number = 0
        var quote: UInt8? = nil
        for byte in text.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                output.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                output.append(byte)
            } else if byte == UInt8(ascii: "?") {
                number += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(number).utf8)
            } else {
                output.append(byte)
            }
        }
        let rewritten = String(decoding: output, as: UTF8.self)
        numberedTexts.withLock { texts in
            if texts.count >= numberedLimit { texts.removeAll() }
            texts[text] = rewritten
        }
        return rewritten
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

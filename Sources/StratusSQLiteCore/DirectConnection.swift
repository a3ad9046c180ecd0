import Foundation
import StratusModel
import StratusSQLValue
// sqlite-nio's bundled SQLite (its C target, reachable because SQLiteNIO depends on it). Stratus
// drives it directly: sqlite-nio's async API sends every statement to a thread pool and back,
// and those hops — not SQLite — were most of a request's latency (see docs/decisions/0003-sqlite-called-directly.md).
// Calling the C API inline runs a whole transaction on the calling task, with prepared
// statements cached per connection.
import VaporCSQLite
import StratusPageCache
import StratusWALBuffer

/// Errors from SQLite, with its result code. Their text stays in server logs; clients see a
/// generic reason.
public struct SQLiteFailure: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { "SQLite error \(code): \(message)" }

    /// SQLITE_BUSY / SQLITE_LOCKED: another process held the database past the busy timeout.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    /// SQLITE_NOTADB: the file is not a database.
    public var isNotADatabase: Bool { code & 0xFF == SQLITE_NOTADB }
}

/// One SQLite connection used synchronously by whichever task currently holds it. Shared by the
/// server's store (StratusSQLite) and the sync engine's local cache (StratusSync).
public final class DirectConnection: @unchecked Sendable {
    // @unchecked: its owners hand a connection to one task at a time (the server's writer gate
    // and reader pool, the sync cache's actor), so the handle and the statement cache are never
    // used concurrently; the library is also compiled thread-safe (SQLITE_THREADSAFE=1).
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private var isClosed = false
    private static let statementCacheLimit = 512
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Whether Stratus's page cache is in use (it must be installed before SQLite's first open;
    /// Swift runs this initializer once, before the first connection of the process).
    public static let pageCacheInstalled: Bool = stratus_page_cache_install() == 1

    /// Whether Stratus's WAL-buffering VFS is the default (registered once, after the page cache:
    /// registering a VFS initializes SQLite, after which the cache can no longer be installed).
    public static let walBufferInstalled: Bool = {
        _ = pageCacheInstalled
        return stratus_wal_buffer_install() == 1
    }()

    public init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32) throws {
        _ = Self.walBufferInstalled
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let status = sqlite_nio_sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite_nio_sqlite3_close_v2(db) }
            throw SQLiteFailure(code: status, message: message)
        }
        handle = db
        sqlite_nio_sqlite3_extended_result_codes(db, 1)
        sqlite_nio_sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        let registered = sqlite_nio_sqlite3_create_function_v2(
            db, "stratus_distance", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
            nil, distanceFunction, nil, nil, nil)
        guard registered == SQLITE_OK else {
            sqlite_nio_sqlite3_close_v2(db)
            throw SQLiteFailure(code: registered, message: "cannot register stratus_distance")
        }
    }

    deinit { close() }

    /// Finalizes cached statements and closes the handle; later calls to `run` fail.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite_nio_sqlite3_close_v2(handle)
    }

    /// Whether a transaction is open (false after COMMIT, ROLLBACK, or an error that made SQLite
    /// roll the whole transaction back).
    public var isInTransaction: Bool { sqlite_nio_sqlite3_get_autocommit(handle) == 0 }

    /// Runs one statement and returns its rows.
    @discardableResult
    public func run(_ sql: String, _ binds: [SQLValue] = []) throws -> [SQLRow] {
        if isClosed { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the database is closed (the server is shutting down)") }
        let statement = try prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite_nio_sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite_nio_sqlite3_bind_int64(statement, index, number)
            case .real(let number): status = sqlite_nio_sqlite3_bind_double(statement, index, number)
            case .text(let text): status = sqlite_nio_sqlite3_bind_text(statement, index, text, -1, DirectConnection.transient)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { sqlite_nio_sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), DirectConnection.transient) }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        var rows: [SQLRow] = []
        let columns = sqlite_nio_sqlite3_column_count(statement)
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw failure(status) }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columns))
            for column in 0..<columns {
                switch sqlite_nio_sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values.append(.integer(sqlite_nio_sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: values.append(.real(sqlite_nio_sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
                    if let text = sqlite_nio_sqlite3_column_text(statement, column) {
                        values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                case SQLITE_BLOB:
                    let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
                    if let bytes = sqlite_nio_sqlite3_column_blob(statement, column) {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: count))))
                    } else {
                        values.append(.blob([]))
                    }
                default: values.append(.null)
                }
            }
            rows.append(SQLRow(values: values))
        }
        return rows
    }

    /// Writes the database file's and its log's dirty pages to disk (fdatasync on each), through
    /// SQLite's own open files: closing another descriptor of the database would drop this
    /// process's POSIX locks on it. An extra sync never weakens SQLite's guarantees.
    public func syncFiles() throws {
        if isClosed { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the database is closed (the server is shutting down)") }
        for opcode in [SQLITE_FCNTL_FILE_POINTER, SQLITE_FCNTL_JOURNAL_POINTER] {
            var file: UnsafeMutablePointer<sqlite3_file>?
            let found = sqlite_nio_sqlite3_file_control(handle, "main", opcode, &file)
            // No log file is open until the connection's first read in WAL mode.
            guard found == SQLITE_OK, let file, let methods = file.pointee.pMethods, let sync = methods.pointee.xSync else { continue }
            let status = sync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY)
            guard status == SQLITE_OK else { throw SQLiteFailure(code: status, message: "fdatasync failed") }
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(handle, ParameterRewriter.unaryPlus(sql), -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        if statements.count >= DirectConnection.statementCacheLimit {
            for old in statements.values { sqlite_nio_sqlite3_finalize(old) }
            statements.removeAll(keepingCapacity: true)
        }
        statements[sql] = statement
        return statement
    }

    private func failure(_ status: Int32) -> SQLiteFailure {
        SQLiteFailure(code: status, message: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
    }
}

/// `stratus_distance(lat1, lon1, lat2, lon2)`: metres along a great circle, for NEAR filters and
/// distance sorts. NULL when any argument is NULL (a record without that location).
private let distanceFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, arguments in
    guard count == 4, let arguments else { sqlite_nio_sqlite3_result_null(context); return }
    var values: [Double] = []
    for index in 0..<4 {
        guard let argument = arguments[index], sqlite_nio_sqlite3_value_type(argument) != SQLITE_NULL else {
            sqlite_nio_sqlite3_result_null(context)
            return
        }
        values.append(sqlite_nio_sqlite3_value_double(argument))
    }
    sqlite_nio_sqlite3_result_double(context, LocationValue.haversineMetres(values[0], values[1], values[2], values[3]))
}

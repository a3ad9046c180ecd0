import Logging
import PostgresNIO
import StratusStore
import Synchronization

/// Opens connections the way libpq does for a URL with several hosts: each host in order, and
/// the first whose server fits `target_session_attrs` is kept. After a failover the old primary
/// refuses or turns out to be a standby, so a new connection lands on the promoted one without
/// anyone changing the URL.
struct PostgresConnector: Sendable {
    let url: PostgresURL
    let logger: Logger

    /// Connection ids, unique within the process (they name connections in postgres-nio's logs).
    private static let ids = Atomic<Int>(0)

    /// A connection to the first host that fits, or `NoServer` saying why each host did not.
    func connect() async throws -> PostgresConnection {
        var refusals: [String] = []
        for endpoint in url.endpoints {
            switch await attempt(endpoint) {
            case .success(let connection): return connection
            case .failure(let refusal): refusals.append("\(endpoint): \(refusal.reason)")
            }
        }
        throw NoServer(url: url, refusals: refusals)
    }

    /// One host: connect, authenticate and check it, all within the URL's connect timeout (as
    /// libpq's `connect_timeout` bounds the whole attempt). A server that accepts the TCP
    /// connection and then never answers (a dying primary can) would otherwise hold the request
    /// that needs the connection for as long as the socket stays open.
    private func attempt(_ endpoint: PostgresURL.Endpoint) async -> Result<PostgresConnection, Refusal> {
        // The connection once made, so that the timeout can close it: a check waiting on a
        // server that never answers then fails, and the attempt ends.
        let made = MadeConnection()
        return await withTaskGroup(of: Result<PostgresConnection, Refusal>?.self) { group in
            group.addTask {
                let connection: PostgresConnection
                do {
                    let id = PostgresConnector.ids.wrappingAdd(1, ordering: .relaxed).newValue
                    connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(endpoint), id: id, logger: logger)
                } catch {
                    return .failure(Refusal(reason: Self.describeConnectFailure(error)))
                }
                made.connection.withLock { $0 = connection }
                do {
                    if let mismatch = try await mismatch(connection) {
                        try? await connection.close()
                        return .failure(Refusal(reason: mismatch))
                    }
                } catch {
                    try? await connection.close()
                    return .failure(Refusal(reason: PostgresStorage.describe(error)))
                }
                return .success(connection)
            }
            group.addTask {
                try? await Task.sleep(for: url.connectTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil, let connection = made.connection.withLock({ $0 }) { try? await connection.close() }
            // A connection that arrives after the timeout is closed, never dropped open.
            while let late = await group.next() {
                if case .success(let connection)? = late { try? await connection.close() }
            }
            return first ?? .failure(Refusal(reason: "no answer within the connect timeout (\(url.connectTimeout))"))
        }
    }

    private final class MadeConnection: Sendable {
        let connection = Mutex<PostgresConnection?>(nil)
    }

    struct Refusal: Error {
        let reason: String
    }

    /// Why the server on `connection` does not fit the URL's `target_session_attrs`, or nil.
    /// One round trip, which `any` skips unless `always` (a heartbeat wants the round trip).
    func mismatch(_ connection: PostgresConnection, always: Bool = false) async throws -> String? {
        guard url.targetSessionAttributes != .any || always else { return nil }
        let rows = try await GuardedStatement.rows(
            "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')", on: connection, logger: logger)
        var answer: String?
        for row in rows {
            let inRecovery = row[0].integer == 1
            let readOnly = row[1].text == "on"
            switch url.targetSessionAttributes {
            case .any: answer = nil
            case .primary: answer = inRecovery ? "a standby (in recovery), not the primary" : nil
            case .readWrite:
                answer = inRecovery ? "a standby (in recovery), not the primary" : readOnly ? "read-only (default_transaction_read_only is on)" : nil
            }
        }
        return answer
    }

    /// A failed connect in a few words: NIO's own text for a refused connection is a paragraph.
    static func describeConnectFailure(_ error: any Error) -> String {
        let text = PostgresStorage.describe(error)
        if text.contains("Connection refused") { return "connection refused" }
        if text.contains("connectTimeout") || text.contains("timed out") { return "no answer within the connect timeout" }
        return text
    }

    /// No host of the URL gave a connection that fits.
    struct NoServer: Error, CustomStringConvertible {
        let url: PostgresURL
        let refusals: [String]

        var description: String {
            let wanted = url.targetSessionAttributes == .any ? "" : " (target_session_attrs=\(url.targetSessionAttributes.rawValue))"
            return "no server of \(url)\(wanted) can be used: \(refusals.joined(separator: "; "))"
        }
    }
}

extension PostgresURL {
    /// One connection outside any pool, to the first host that fits (`PostgresConnector`).
    public func connect(logger: Logger) async throws -> PostgresConnection {
        try await PostgresConnector(url: self, logger: logger).connect()
    }
}

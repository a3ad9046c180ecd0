import Logging
import NIOCore
import PostgresNIO
import StratusStore
import Synchronization

/// One statement on a connection, answered even when the connection closes under it.
/// postgres-nio writes a query to its channel without a promise for the write: when the channel
/// has closed by the time the write runs on the event loop, the query is dropped and its result
/// never arrives. So the answer is awaited beside a check, every `closedCheck`, of whether the
/// connection has closed; a statement still unanswered then fails with `ConnectionClosed`
/// (`maybeSent`: it may have reached the server, which matters for COMMIT).
enum GuardedStatement {
    static let closedCheck: TimeAmount = .milliseconds(500)

    static func rows(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [SQLRow] {
        try ConnectionClosed.check(connection)
        let collected = CollectedRows()
        let answer = OneAnswer()
        return try await withCheckedThrowingContinuation { continuation in
            answer.set(continuation)
            let eventLoop = connection.eventLoop
            let check = eventLoop.scheduleRepeatedTask(initialDelay: closedCheck, delay: closedCheck) { task in
                guard connection.isClosed else { return }
                task.cancel()
                answer.resume(.failure(ConnectionClosed(maybeSent: true)))
            }
            connection.query(query, logger: logger) { row in
                collected.rows.append(SQLRow(values: row.map(PostgresExecutor.value)))
            }.whenComplete { result in
                check.cancel()
                answer.resume(result.map { _ in collected.rows }.mapError { $0 })
            }
        }
    }

    /// Rows as they arrive: appended on the connection's event loop, read once the statement's
    /// future has completed there (which orders the reads after the writes).
    private final class CollectedRows: @unchecked Sendable {
        var rows: [SQLRow] = []
    }

    /// Resumes the awaiting statement once, with whichever comes first.
    private final class OneAnswer: Sendable {
        private let continuation = Mutex<CheckedContinuation<[SQLRow], any Error>?>(nil)

        func set(_ waiting: CheckedContinuation<[SQLRow], any Error>) {
            continuation.withLock { $0 = waiting }
        }

        func resume(_ result: Result<[SQLRow], any Error>) {
            continuation.withLock { waiting in
                waiting?.resume(with: result)
                waiting = nil
            }
        }
    }
}

import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file in the background, so that commits
/// do not pay for it.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages: every so
/// often one request's write includes copying the log and an fsync (about 5% of the time of a
/// single-record create in a profile). Here the writer's automatic checkpoint is raised to a
/// backstop (`backstopPages`) and this loop runs a PASSIVE checkpoint, which never blocks readers
/// or the writer, on its own connection shortly after writes happen.
final class WALCheckpointer: Sendable {
    /// The writer still checkpoints by itself past this many WAL pages (if this loop cannot keep up
    /// or is not running, as in tests that open the database without serving).
    static let backstopPages = 10_000
    private let connection: ConnectionPool
    private let commits = Atomic<Int>(0)
    private let interval: Duration

    init(connection: DirectConnection, interval: Duration = .milliseconds(200)) {
        self.connection = ConnectionPool([connection])
        self.interval = interval
    }

    /// Called after each committed write transaction.
    func noteCommit() { commits.add(1, ordering: .relaxed) }

    /// Checkpoints after writes until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard commits.exchange(0, ordering: .relaxed) > 0 else { continue }
            _ = try? await connection.with { try $0.run("PRAGMA wal_checkpoint(PASSIVE)") }
        }
    }

    func close() async {
        let connection = await connection.take()
        connection.close()
        self.connection.give(connection)
    }
}

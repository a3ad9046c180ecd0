import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file in the background, so that commits
/// do not pay for it, and keeps the log from growing without bound under continuous writes.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that
/// request's write then includes copying the log and an fsync. Here a loop runs a PASSIVE checkpoint, which never
/// blocks readers or the writer, on its own connection shortly after writes happen.
///
/// A checkpoint alone does not shrink the log: SQLite starts writing it from the beginning again
/// only when a write transaction begins while every frame is already copied back. Under
/// continuous writes that moment never comes by itself (new frames arrive while a pass copies),
/// so once the log holds `restartFrames`, the loop takes the writer's turn between two write
/// transactions and copies the rest; the next write then restarts the log. Before that pause it
/// copies and fsyncs in rounds until one is short (`catchUp`), so that the pause costs a short
/// copy and fsync instead of writing back everything copied since the last quiet moment. The log
/// file still grows while a pass runs, so under back-to-back batches it peaks well above
/// `restartFrames`.
///
/// The writer's own automatic checkpoint stays as a backstop (`backstopPages`) for when this
/// loop is not running (commands and tests that open the database without serving). It is high
/// because a lower one fires inside commits again and again under sustained writes (see
/// docs/decisions/0009-background-checkpoints.md).
final class WALCheckpointer: Sendable {
    /// The writer still checkpoints by itself past this many WAL pages (256 MB of 4 KiB pages).
    static let backstopPages = 65_536
    private let connection: ConnectionPool
    private let commits = Atomic<Int>(0)
    private let interval: Duration
    /// Log size (frames) past which a pass is followed by a pause of the writer to restart the log.
    private let restartFrames: Int

    init(connection: DirectConnection, interval: Duration = .milliseconds(200), restartFrames: Int = 16_384) {
        self.connection = ConnectionPool([connection])
        self.interval = interval
        self.restartFrames = restartFrames
    }

    /// Called after each committed write transaction.
    func noteCommit() { commits.add(1, ordering: .relaxed) }

    /// Checkpoints after writes until the task is cancelled; pauses `writer` to restart a long log.
    func run(restartingLogOf writer: GroupCommitWriter) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard commits.exchange(0, ordering: .relaxed) > 0 else { continue }
            guard let frames = await checkpoint(), frames >= restartFrames else { continue }
            await catchUp()
            await writer.whileIdle { _ = await self.checkpoint() }
        }
    }

    /// Copies and syncs outside the pause until a round is short, so that the pass inside the
    /// pause has little to write to disk. SQLite fsyncs the database only in a pass that finds no
    /// new frames at its end; under continuous writes that is the pass in the pause, which then
    /// synced every page copied since the last quiet moment. Each round here syncs what arrived
    /// during the one before, so rounds shrink until the disk's own latency.
    private func catchUp() async {
        var previous: Duration?
        for _ in 0..<Self.maxCatchUpRounds where !Task.isCancelled {
            let start = ContinuousClock.now
            guard await checkpoint(thenSync: true) != nil else { return }
            let round = ContinuousClock.now - start
            // Stop once short, or once rounds stop shrinking (the disk is that busy).
            if round <= Self.shortRound || previous.map({ round >= $0 }) == true { return }
            previous = round
        }
    }

    /// A round this short lets the pause start.
    static let shortRound = Duration.milliseconds(5)
    /// Rounds tried before pausing anyway.
    static let maxCatchUpRounds = 6

    /// One PASSIVE checkpoint, then an fdatasync of the database and the log if asked; returns
    /// the number of frames in the log.
    private func checkpoint(thenSync: Bool = false) async -> Int? {
        try? await connection.with { connection in
            let row = try connection.run("PRAGMA wal_checkpoint(PASSIVE)").first
            if thenSync { try connection.syncFiles() }
            return row?[1].integer.map(Int.init) ?? 0
        }
    }

    func close() async {
        let connection = await connection.take()
        connection.close()
        self.connection.give(connection)
    }
}

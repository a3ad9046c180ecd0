import Foundation
import Testing
@testable import StratusSQLite

/// The background checkpointer on a real SQLite file under back-to-back write transactions: the
/// write-ahead log must keep restarting (its file stays small) without losing a committed row.
@Suite struct WALRestartTests {
    @Test func continuousWritesKeepTheLogFileBounded() async throws {
        let folder = try ScratchFolder("stratus-wal")
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let connection = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
        try connection.run("PRAGMA journal_mode = WAL")
        try connection.run("PRAGMA wal_autocheckpoint = \(WALCheckpointer.backstopPages)")
        try connection.run("CREATE TABLE items (key TEXT PRIMARY KEY, body TEXT NOT NULL)")

        let checkpointer = WALCheckpointer(
            connection: try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000),
            interval: .milliseconds(20), restartFrames: 256)
        let writer = GroupCommitWriter(connection: connection, didCommit: { checkpointer.noteCommit() })
        let loop = Task { await checkpointer.run(restartingLogOf: writer) }

        // Random keys spread each transaction over many pages of the key index: without the
        // restart the log file grew to 108 MB. Written back to back, so that the log never
        // empties by itself.
        let transactions = 1_500
        let rowsPerTransaction = 10
        let body = String(repeating: "x", count: 1_000)
        for _ in 0..<transactions {
            // A write that finds the writer free never suspends; yield as a server's request
            // tasks do, or this loop would keep the checkpointer off a busy test process's threads.
            await Task.yield()
            try await writer.write { connection in
                for _ in 0..<rowsPerTransaction {
                    try connection.run("INSERT INTO items (key, body) VALUES (?, ?)", [.text(UUID().uuidString), .text(body)])
                }
            }
        }
        loop.cancel()
        await loop.value

        let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        let rows = try connection.run("SELECT count(*) FROM items").first?[0].integer
        #expect(rows == Int64(transactions * rowsPerTransaction))
        // Without the restart the log grows with every transaction (tens of MB here).
        #expect(walBytes < 16 << 20, "the WAL file grew to \(walBytes) bytes")
        await checkpointer.close()
        connection.close()
    }

    /// The checkpointer's catch-up rounds fdatasync through the connection's own files: that must
    /// work before the connection has opened its log and after writes, leave the database usable,
    /// and fail clearly once the connection is closed.
    @Test func syncFilesWorksBeforeAndAfterTheLogOpensAndFailsOnceClosed() throws {
        let folder = try ScratchFolder("stratus-sync")
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let connection = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
        try connection.syncFiles()
        try connection.run("PRAGMA journal_mode = WAL")
        try connection.run("CREATE TABLE items (key TEXT PRIMARY KEY)")
        try connection.run("INSERT INTO items (key) VALUES ('a')")
        try connection.syncFiles()
        // The connection and another one still read and write normally afterwards.
        let other = try DirectConnection(path: path, readOnly: true, busyTimeoutMilliseconds: 5_000)
        #expect(try other.run("SELECT count(*) FROM items").first?[0].integer == 1)
        try connection.run("INSERT INTO items (key) VALUES ('b')")
        other.close()
        connection.close()
        #expect(throws: SQLiteFailure.self) { try connection.syncFiles() }
    }
}

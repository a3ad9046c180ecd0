import Foundation
import Testing
import StratusSQLiteCore

/// Stratus's page cache (StratusPageCache.c) sits between SQLite and its default cache for every
/// connection in the process. A wrapper that mishandles a page corrupts what SQLite reads (with
/// rekeys to the temporary key not forwarded, this suite crashed). These runs grow and shrink a
/// real database file through the paths that move pages around and past its end: B-tree
/// rebalances (which swap page numbers through the temporary key the wrapper leaves out),
/// rolled-back growth, savepoints rolled back inside a commit (as a failed group member), and
/// auto-vacuum truncating the file.
/// (Skipping every truncation did not fail them: SQLite drops a rolled-back transaction's pages
/// itself and overwrites a page it allocates, so truncation only frees memory.)
@Suite struct PageCacheTests {
    private func openDatabase(journalMode: String = "WAL") throws -> (DirectConnection, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-pcache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let connection = try DirectConnection(
            path: folder.appendingPathComponent("db.sqlite").path, readOnly: false,
            busyTimeoutMilliseconds: 5_000)
        try connection.run("PRAGMA journal_mode = \(journalMode)")
        try connection.run("PRAGMA cache_size = -32000")
        try connection.run("CREATE TABLE items (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, body TEXT NOT NULL)")
        try connection.run("CREATE INDEX items_by_body ON items (body, key)")
        return (connection, folder)
    }

    /// Inserts rows with random keys and returns them.
    @discardableResult
    private func insertRandomRows(_ count: Int, into connection: DirectConnection) throws -> [String: String] {
        var inserted: [String: String] = [:]
        for _ in 0..<count {
            let key = UUID().uuidString
            let body = String(repeating: String(key.prefix(4)), count: 20)
            try connection.run("INSERT INTO items (key, body) VALUES (?, ?)", [.text(key), .text(body)])
            inserted[key] = body
        }
        return inserted
    }

    private func check(_ connection: DirectConnection, holds expected: [String: String]) throws {
        #expect(try connection.run("PRAGMA integrity_check").first?[0].text == "ok")
        let rows = try connection.run("SELECT key, body FROM items")
        var stored: [String: String] = [:]
        for row in rows { stored[row[0].text ?? ""] = row[1].text ?? "" }
        #expect(stored.count == expected.count)
        #expect(stored == expected)
    }

    @Test func isInstalledBeforeTheFirstConnection() throws {
        let (connection, folder) = try openDatabase()
        defer { connection.close(); try? FileManager.default.removeItem(at: folder) }
        #expect(DirectConnection.pageCacheInstalled)
    }

    @Test(arguments: ["WAL", "DELETE"])
    func rollbacksAndRebalancesKeepEveryCommittedRow(journalMode: String) throws {
        let (connection, folder) = try openDatabase(journalMode: journalMode)
        defer { connection.close(); try? FileManager.default.removeItem(at: folder) }
        var expected: [String: String] = [:]
        for round in 0..<30 {
            // Committed: random keys split and rebalance pages all over both indexes.
            try connection.run("BEGIN IMMEDIATE")
            expected.merge(try insertRandomRows(150, into: connection)) { $1 }
            try connection.run("COMMIT")
            // Rolled back: the file grows in the cache, then shrinks back to its committed size.
            try connection.run("BEGIN IMMEDIATE")
            try insertRandomRows(400, into: connection)
            try connection.run("ROLLBACK")
            // A savepoint rolled back inside a committed transaction, as a failed group member.
            try connection.run("BEGIN IMMEDIATE")
            expected.merge(try insertRandomRows(20, into: connection)) { $1 }
            try connection.run("SAVEPOINT member")
            try insertRandomRows(300, into: connection)
            try connection.run("ROLLBACK TO member")
            try connection.run("RELEASE member")
            expected.merge(try insertRandomRows(20, into: connection)) { $1 }
            try connection.run("COMMIT")
            if round % 10 == 9 { try check(connection, holds: expected) }
        }
        // Another connection reads the file from scratch.
        let reader = try DirectConnection(
            path: folder.appendingPathComponent("db.sqlite").path, readOnly: true,
            busyTimeoutMilliseconds: 5_000)
        defer { reader.close() }
        try check(reader, holds: expected)
    }

    @Test func deletesThatShrinkTheFileKeepEveryRemainingRow() throws {
        let (connection, folder) = try openDatabase()
        defer { connection.close(); try? FileManager.default.removeItem(at: folder) }
        try connection.run("PRAGMA auto_vacuum = FULL")
        try connection.run("VACUUM")
        var expected: [String: String] = [:]
        for _ in 0..<10 {
            try connection.run("BEGIN IMMEDIATE")
            expected.merge(try insertRandomRows(500, into: connection)) { $1 }
            try connection.run("COMMIT")
            // Auto-vacuum moves pages and truncates the file at each commit.
            try connection.run("BEGIN IMMEDIATE")
            let victims = try connection.run("SELECT key FROM items ORDER BY random() LIMIT 350").compactMap { $0[0].text }
            for key in victims {
                try connection.run("DELETE FROM items WHERE key = ?", [.text(key)])
                expected[key] = nil
            }
            try connection.run("COMMIT")
            expected.merge(try insertRandomRows(50, into: connection)) { $1 }
        }
        try check(connection, holds: expected)
    }
}

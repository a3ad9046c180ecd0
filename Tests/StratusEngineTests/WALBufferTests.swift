import Foundation
import Testing
import StratusSQLiteCore

/// Stratus's VFS (StratusWALBuffer.c) gathers a transaction's writes to the write-ahead log and
/// writes them out when the commit frame is complete. If it held back a byte past the commit,
/// another connection would read a frame that is not in the file yet, and a crash right after an
/// acknowledged commit would lose it. These runs check both after every commit, through the paths
/// that write the log out of order: transactions larger than the cache (frames spilled mid-way,
/// then overwritten in place and their checksums rewritten at commit), savepoints rolled back, and
/// a log restart (its header rewritten at offset 0).
@Suite struct WALBufferTests {
    @Test func isRegisteredBeforeTheFirstConnection() {
        #expect(DirectConnection.walBufferInstalled)
    }

    @Test func everyCommitIsInTheFilesWhenItsCommitReturns() throws {
        let folder = try ScratchFolder("stratus-walbuf")
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let writer = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
        try writer.run("PRAGMA journal_mode = WAL")
        try writer.run("PRAGMA wal_autocheckpoint = 0")
        // As the server runs it: commits do not fsync (an fsync would write everything out anyway).
        try writer.run("PRAGMA synchronous = NORMAL")
        try writer.run("CREATE TABLE items (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, body TEXT NOT NULL)")
        try writer.run("CREATE INDEX items_by_body ON items (body, key)")
        let reader = try DirectConnection(path: path, readOnly: true, busyTimeoutMilliseconds: 5_000)
        defer { reader.close(); writer.close() }

        var expected: [String: String] = [:]
        for round in 0..<40 {
            // Every fifth transaction: 400 rows through a 16-page cache, so that frames spill to the
            // log before the commit. The others fit in the cache and reach the log at commit only.
            let spills = round % 5 == 4
            try writer.run("PRAGMA cache_size = \(spills ? 16 : -8_000)")
            try writer.run("BEGIN IMMEDIATE")
            for _ in 0..<(spills ? 400 : 3) {
                let key = UUID().uuidString
                let body = String(repeating: String(key.prefix(6)), count: 30)
                try writer.run("INSERT INTO items (key, body) VALUES (?, ?)", [.text(key), .text(body)])
                expected[key] = body
            }
            if round % 3 == 0 {
                try writer.run("SAVEPOINT member")
                for _ in 0..<20 {
                    try writer.run("INSERT INTO items (key, body) VALUES (?, ?)", [.text(UUID().uuidString), .text("rolled back")])
                }
                try writer.run("ROLLBACK TO member")
                try writer.run("RELEASE member")
            }
            if let (key, _) = expected.first {
                let body = "updated in round \(round)"
                try writer.run("UPDATE items SET body = ? WHERE key = ?", [.text(body), .text(key)])
                expected[key] = body
            }
            try writer.run("COMMIT")

            // Another connection reads the commit from the files at once.
            #expect(try reader.run("SELECT count(*) FROM items").first?[0].integer == Int64(expected.count))
            if round % 10 == 9 {
                // What a crash right now would leave: the database and its log, no shared index.
                // A fresh connection rebuilds the index from the log, checking every frame.
                let copy = folder.url.appendingPathComponent("crash-\(round)")
                try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
                for suffix in ["", "-wal"] {
                    try FileManager.default.copyItem(atPath: path + suffix, toPath: copy.appendingPathComponent("db.sqlite" + suffix).path)
                }
                let recovered = try DirectConnection(
                    path: copy.appendingPathComponent("db.sqlite").path, readOnly: false,
                    busyTimeoutMilliseconds: 5_000)
                defer { recovered.close() }
                #expect(try recovered.run("PRAGMA integrity_check").first?[0].text == "ok")
                var stored: [String: String] = [:]
                for row in try recovered.run("SELECT key, body FROM items") { stored[row[0].text ?? ""] = row[1].text ?? "" }
                #expect(stored == expected, "after round \(round)")
            }
            if round == 20 {
                // Copy everything back and start the log again from its first byte.
                let restart = try writer.run("PRAGMA wal_checkpoint(RESTART)").first
                #expect(restart?[0].integer == 0)
            }
        }
    }
}

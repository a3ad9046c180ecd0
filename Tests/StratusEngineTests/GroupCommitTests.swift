import Foundation
import Synchronization
import Testing
@testable import StratusSQLite

/// The writer's group commit on a real SQLite file: concurrent write transactions share commits,
/// a failing member undoes only its own writes, and a failed commit fails every member of it.
@Suite struct GroupCommitTests {
    /// A WAL database file with one table, a writer whose commits are counted, and a reader.
    struct Fixture {
        let folder: URL
        let writer: GroupCommitWriter
        let reader: DirectConnection
        let commits: Counter

        static func make() throws -> Fixture {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-group-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("db.sqlite").path
            let connection = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
            try connection.run("PRAGMA journal_mode = WAL")
            try connection.run("PRAGMA foreign_keys = ON")
            try connection.run("CREATE TABLE parents (id INTEGER PRIMARY KEY)")
            try connection.run(
                """
                CREATE TABLE items (name TEXT PRIMARY KEY,
                                    parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED)
                """)
            let commits = Counter()
            // Groups limited by size only: the tests must not depend on how fast a loaded
            // machine schedules the queued transactions.
            let writer = GroupCommitWriter(
                connection: connection, limits: .init(maxMembers: 32, maxDuration: .seconds(60)),
                didCommit: { commits.increment() })
            let reader = try DirectConnection(path: path, readOnly: true, busyTimeoutMilliseconds: 5_000)
            return Fixture(folder: folder, writer: writer, reader: reader, commits: commits)
        }

        func committedNames() throws -> Set<String> {
            Set(try reader.run("SELECT name FROM items").compactMap { $0[0].text })
        }

        func close() {
            writer.connection.close()
            reader.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    final class Counter: Sendable {
        private let atomic = Atomic<Int>(0)
        func increment() { atomic.add(1, ordering: .relaxed) }
        var value: Int { atomic.load(ordering: .relaxed) }
    }

    struct PlannedFailure: Error {}

    /// Starts `count` transactions at once while the first one holds the writer, so the others
    /// queue behind it; each inserts one row, and those in `failing` throw after inserting.
    func writeConcurrently(
        _ fixture: Fixture, count: Int, failing: Set<Int> = [],
        row: @escaping @Sendable (Int) -> String = { "INSERT INTO items (name) VALUES ('item-\($0)')" }
    )
        async -> [Int: Result<Void, any Error>]
    {
        let queued = Counter()
        return await withTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
            for index in 0..<count {
                group.addTask {
                    queued.increment()
                    do {
                        try await fixture.writer.write { connection in
                            if index == 0 {
                                // Hold the writer until every other transaction has asked for it.
                                while queued.value < count { try await Task.sleep(for: .milliseconds(5)) }
                                try await Task.sleep(for: .milliseconds(20))
                            }
                            try connection.run(row(index))
                            if failing.contains(index) { throw PlannedFailure() }
                        }
                        return (index, .success(()))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [Int: Result<Void, any Error>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
    }

    @Test func concurrentTransactionsShareCommitsAndAllLand() async throws {
        let fixture = try Fixture.make()
        defer { fixture.close() }
        let results = await writeConcurrently(fixture, count: 60)
        #expect(results.values.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(try fixture.committedNames() == Set((0..<60).map { "item-\($0)" }))
        let commits = fixture.commits.value
        // Without group commit this is 60. With groups of at most 32 it is 2 when all 59 queued
        // before the first finished; a few more if some were still on their way to the queue.
        #expect(commits >= 2 && commits <= 10, "commits: \(commits)")
        #expect(!fixture.writer.connection.isInTransaction)
    }

    @Test func aFailingMemberUndoesOnlyItsOwnWrites() async throws {
        let fixture = try Fixture.make()
        defer { fixture.close() }
        let failing: Set<Int> = [0, 3, 10, 11, 39]
        let results = await writeConcurrently(fixture, count: 40, failing: failing)
        for (index, result) in results {
            switch result {
            case .success: #expect(!failing.contains(index), "transaction \(index) should have failed")
            case .failure(let error): #expect(failing.contains(index) && error is PlannedFailure, "transaction \(index): \(error)")
            }
        }
        let expected = Set((0..<40).filter { !failing.contains($0) }.map { "item-\($0)" })
        #expect(try fixture.committedNames() == expected)
        #expect(!fixture.writer.connection.isInTransaction)
    }

    @Test func aFailedGroupCommitFailsEveryMemberAndKeepsNothing() async throws {
        let fixture = try Fixture.make()
        defer { fixture.close() }
        // Transaction 5 inserts a row whose deferred foreign key points nowhere: its own statement
        // and savepoint succeed, and the violation surfaces only at COMMIT, failing its group.
        let results = await writeConcurrently(
            fixture, count: 20,
            row: { index in
                index == 5 ? "INSERT INTO items (name, parent) VALUES ('item-5', 999)" : "INSERT INTO items (name) VALUES ('item-\(index)')"
            })
        let failed = Set(results.filter { if case .failure = $0.value { true } else { false } }.keys)
        #expect(failed.contains(5))
        // Whoever shared a commit with 5 failed with it; the rest landed. Nothing failed was kept.
        #expect(try fixture.committedNames() == Set((0..<20).filter { !failed.contains($0) }.map { "item-\($0)" }))
        #expect(failed.count > 1, "transaction 5 should have shared its commit with a queued transaction")
        // The writer keeps working after a failed commit.
        try await fixture.writer.write { try $0.run("INSERT INTO items (name) VALUES ('after')") }
        #expect(try fixture.committedNames().contains("after"))
    }

    @Test func aLoneTransactionCommitsAtOnce() async throws {
        let fixture = try Fixture.make()
        defer { fixture.close() }
        try await fixture.writer.write { try $0.run("INSERT INTO items (name) VALUES ('alone')") }
        #expect(try fixture.committedNames() == ["alone"])
        #expect(fixture.commits.value == 1)
    }
}

import Foundation
import StratusKit
import StratusSync
import Testing

/// Two devices of one user edit the same note while offline, then sync in turn; afterwards both
/// devices and the server hold the same values, chosen field by field.
@Suite("Sync engines converge after concurrent offline edits")
struct SyncMergeLiveTests {
    /// Both devices start from the same synced note.
    private func twoDevices() async throws -> (SyncFixture, SyncEngine, SyncEngine) {
        let fixture = try await SyncFixture.make()
        let a = try fixture.engine("a")
        let b = try fixture.engine("b")
        try await a.save(fixture.note("n1", title: "Groceries", body: "milk", tags: ["home"]))
        try await a.sync()
        try await b.sync()
        #expect(summary(try await b.record(for: fixture.id("n1"))) == "Groceries|milk|home")
        return (fixture, a, b)
    }

    /// A syncs, then B, then A again; returns what A, B and the server hold.
    private func converge(_ fixture: SyncFixture, _ a: SyncEngine, _ b: SyncEngine, first: SyncEngine? = nil) async throws -> [String] {
        try await (first ?? a).sync()
        try await (first === b ? a : b).sync()
        try await (first ?? a).sync()
        try await (first === b ? a : b).sync()
        let id = fixture.id("n1")
        #expect(try await a.pendingRecordIDs().isEmpty)
        #expect(try await b.pendingRecordIDs().isEmpty)
        return [summary(try await a.record(for: id)), summary(try await b.record(for: id)), summary(try await fixture.serverRecord("n1"))]
    }

    @Test func editsToDifferentFieldsAreBothKept() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await edit(a, fixture.id("n1")) { $0["title"] = "Shopping" }
        try await edit(b, fixture.id("n1")) { $0["body"] = "milk, eggs" }
        let states = try await converge(fixture, a, b)
        #expect(states == Array(repeating: "Shopping|milk, eggs|home", count: 3))
    }

    @Test func theSameFieldTakesTheValueOfTheDeviceThatSyncedLast() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await edit(a, fixture.id("n1")) { $0["title"] = "From A" }
        try await edit(b, fixture.id("n1")) { $0["title"] = "From B" }
        let states = try await converge(fixture, a, b)
        #expect(states == Array(repeating: "From B|milk|home", count: 3))
    }

    @Test func listsAreMergedAsSets() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await edit(a, fixture.id("n1")) { $0["tags"] = ["home", "urgent"] }
        try await edit(b, fixture.id("n1")) { $0["tags"] = ["home", "weekly"] }
        #expect(try await converge(fixture, a, b) == Array(repeating: "Groceries|milk|home,urgent,weekly", count: 3))

        // A removal on one side and an addition on the other: both take effect.
        try await edit(a, fixture.id("n1")) { $0["tags"] = ["urgent", "weekly"] }
        try await edit(b, fixture.id("n1")) { $0["tags"] = ["home", "urgent", "weekly", "shared"] }
        #expect(try await converge(fixture, a, b) == Array(repeating: "Groceries|milk|shared,urgent,weekly", count: 3))
    }

    @Test func anEditBeatsADeleteThatReachedTheServerFirst() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await a.deleteRecord(withID: fixture.id("n1"))
        try await edit(b, fixture.id("n1")) { $0["body"] = "milk, bread" }
        let states = try await converge(fixture, a, b)
        #expect(states == Array(repeating: "Groceries|milk, bread|home", count: 3))
    }

    @Test func aStaleDeleteDoesNotDestroyAnEditThatReachedTheServerFirst() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await a.deleteRecord(withID: fixture.id("n1"))
        try await edit(b, fixture.id("n1")) { $0["body"] = "milk, bread" }
        try await b.sync()
        // A sends without fetching first: its delete is conditional and meets B's newer version.
        try await a.sendChanges()
        let states = try await converge(fixture, a, b, first: b)
        #expect(states == Array(repeating: "Groceries|milk, bread|home", count: 3))
    }

    @Test func deletesOnBothSidesAgree() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await a.deleteRecord(withID: fixture.id("n1"))
        try await b.deleteRecord(withID: fixture.id("n1"))
        #expect(try await converge(fixture, a, b) == ["deleted", "deleted", "deleted"])
    }

    @Test func recordsCreatedOfflineOnBothDevicesReachBoth() async throws {
        let (fixture, a, b) = try await twoDevices()
        try await a.save(fixture.note("fromA", title: "A", body: "", tags: []))
        try await b.save(fixture.note("fromB", title: "B", body: "", tags: []))
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for engine in [a, b] {
            let titles = try await engine.records(ofType: "Note").compactMap { $0["title"] as? String }.sorted()
            #expect(titles == ["A", "B", "Groceries"])
        }
        let offlineQuery = try await a.records(ofType: "Note") { ($0["title"] as? String) == "B" }
        #expect(offlineQuery.map(\.recordID.recordName) == ["fromB"])
    }
}

/// Keeps the server's version of every conflicting record: the resolver is pluggable.
struct ServerWinsResolver: SyncConflictResolver {
    func resolve(_ conflict: SyncConflict) -> SyncResolution {
        conflict.server.map(SyncResolution.keep) ?? .delete
    }
}

@Suite("Sync conflict resolvers are pluggable")
struct SyncResolverLiveTests {
    @Test func aCustomResolverDecidesConflicts() async throws {
        let fixture = try await SyncFixture.make()
        let a = try fixture.engine("a")
        let b = try fixture.engine("b", resolver: ServerWinsResolver())
        try await a.save(fixture.note("n1", title: "Groceries", body: "milk", tags: ["home"]))
        try await a.sync()
        try await b.sync()
        try await edit(a, fixture.id("n1")) { $0["title"] = "Shopping" }
        try await edit(b, fixture.id("n1")) { $0["body"] = "milk, eggs" }
        try await a.sync()
        try await b.sync()
        // B's resolver kept the server's version: B's body edit is gone, unlike with the default merge.
        #expect(summary(try await b.record(for: fixture.id("n1"))) == "Shopping|milk|home")
        #expect(summary(try await fixture.serverRecord("n1")) == "Shopping|milk|home")
        #expect(try await b.pendingRecordIDs().isEmpty)
    }
}

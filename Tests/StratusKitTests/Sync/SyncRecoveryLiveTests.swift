import Foundation
import StratusKit
import StratusSync
import Testing

@Suite("Sync engine recovery: fresh installs, expired tokens, deleted zones, refused credentials")
struct SyncRecoveryLiveTests {
    @Test func aFreshInstallGetsCurrentStateWithoutReplayingDeletions() async throws {
        let fixture = try await SyncFixture.make()
        let a = try fixture.engine("a")
        for index in 0..<6 { try await a.save(fixture.note("n\(index)", title: "note \(index)", body: "", tags: [])) }
        try await a.sync()
        for index in 0..<3 { try await a.deleteRecord(withID: fixture.id("n\(index)")) }
        try await a.sync()

        let fresh = try fixture.engine("fresh")
        let log = EventLog(fresh)
        try await fresh.sync()
        let names = try await fresh.records(ofType: "Note").map(\.recordID.recordName).sorted()
        #expect(names == ["n3", "n4", "n5"])
        var modified = 0
        for case .fetchedRecordZoneChanges(_, let changed, let deleted) in await log.events() {
            #expect(deleted.isEmpty, "a fresh install is sent no deletions")
            modified += changed.count
        }
        #expect(modified == 3)
    }

    @Test func anExpiredTokenIsRecoveredByRefetchingWithoutLosingPendingChanges() async throws {
        // Compaction is server-wide: this test has a server of its own.
        let fixture = try await SyncFixture.make(server: try await LiveServer.dedicated())
        let a = try fixture.engine("a")
        let b = try fixture.engine("b")
        for name in ["n1", "n2", "n3"] { try await a.save(fixture.note(name, title: name, body: "", tags: [])) }
        try await a.sync()
        try await b.sync()

        // While B is offline: A deletes n1 and edits n2; B edits n3 and writes n4.
        try await a.deleteRecord(withID: fixture.id("n1"))
        try await edit(a, fixture.id("n2")) { $0["body"] = "edited on A" }
        try await a.sync()
        try await edit(b, fixture.id("n3")) { $0["body"] = "edited on B" }
        try await b.save(fixture.note("n4", title: "n4", body: "new on B", tags: []))
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(try await fixture.server.engine.compactChangeLogs(retention: 0) > 0)

        let log = EventLog(b)
        try await b.sync()
        let expired = await log.events().filter { if case .changeTokenExpired = $0 { true } else { false } }
        #expect(!expired.isEmpty, "B's tokens predate the compaction")
        let names = try await b.records(ofType: "Note").map(\.recordID.recordName).sorted()
        #expect(names == ["n2", "n3", "n4"], "n1's deletion is learnt from the refetch")
        #expect(summary(try await b.record(for: fixture.id("n2"))) == "n2|edited on A|-")
        #expect(summary(try await fixture.serverRecord("n3")) == "n3|edited on B|-", "B's pending edit survived the refetch")
        #expect(summary(try await fixture.serverRecord("n4")) == "n4|new on B|-")
        #expect(try await b.pendingRecordIDs().isEmpty)
    }

    @Test func aZoneDeletedOnTheServerIsRemovedLocallyAndCanBeRecreated() async throws {
        let fixture = try await SyncFixture.make()
        let a = try fixture.engine("a")
        try await a.save(fixture.note("n1", title: "one", body: "", tags: []))
        try await a.save(fixture.note("n2", title: "two", body: "", tags: []))
        try await a.sync()
        try await edit(a, fixture.id("n1")) { $0["body"] = "pending" }
        _ = try await fixture.container.privateCloudDatabase.deleteRecordZone(withID: fixture.zoneID)

        let log = EventLog(a)
        try await a.sendChanges()
        let deletions = await log.events().compactMap { event -> Int? in
            if case .zoneDeleted(let zone, let dropped) = event, zone == fixture.zoneID { return dropped } else { return nil }
        }
        #expect(deletions == [1], "the send learnt the zone is gone and dropped its one pending change")
        #expect(try await a.recordCount() == 0)
        #expect(try await a.zoneIDs().isEmpty)

        // Saving into the zone again creates it again.
        try await a.save(fixture.note("n3", title: "three", body: "", tags: []))
        try await a.sync()
        #expect(summary(try await fixture.serverRecord("n3")) == "three|-|-")
    }

    @Test func aRevokedAPITokenStopsSyncingAndKeepsPendingChanges() async throws {
        let fixture = try await SyncFixture.make()
        let identifier = try #require(fixture.container.containerIdentifier)
        var revoked = try #require(fixture.server.configuration(of: fixture.container))
        revoked.apiToken = try await fixture.server.engine.createAPIToken(container: identifier)
        let engine = try fixture.engine("a", container: CKContainer(configuration: revoked))
        let log = EventLog(engine)
        try await engine.save(fixture.note("n0", title: "sent before", body: "", tags: []))
        try await engine.sync()
        try await fixture.server.engine.revokeAPIToken(container: identifier, idOrToken: revoked.apiToken)
        try await engine.save(fixture.note("n1", title: "kept", body: "", tags: []))
        for _ in 0..<2 {
            do {
                try await engine.sync()
                Issue.record("a sync with a revoked API token succeeded")
            } catch let error as SyncError {
                #expect("\(error)".contains("refused the credentials"))
            }
        }
        let failures = await log.events().filter { if case .authenticationFailed = $0 { true } else { false } }
        #expect(failures.count == 1, "reported once; the second sync did not go to the server")
        #expect(try await engine.pendingRecordIDs() == [fixture.id("n1")])

        await engine.resume(with: fixture.container)
        try await engine.sync()
        #expect(summary(try await fixture.serverRecord("n1")) == "kept|-|-")
        #expect(try await engine.pendingRecordIDs().isEmpty)
    }
}

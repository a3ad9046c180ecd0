import Foundation
import StratusKit
import StratusSync
import StratusTestSupport
import Testing

/// Runs `sync-kill-helper` (built next to the test bundle) against the live server and reads its
/// output line by line.
final class KilledEngineProcess {
    private let child: ChildProcess
    private(set) var lines: [String] = []

    init(_ arguments: [String], configuration: StratusConfiguration) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["STRATUS_URL"] = configuration.serverURL.absoluteString
        environment["STRATUS_CONTAINER"] = configuration.containerIdentifier
        environment["STRATUS_API_TOKEN"] = configuration.apiToken
        environment["STRATUS_WEB_AUTH_TOKEN"] = configuration.webAuthToken
        child = try ChildProcess(try BuiltProduct.path("sync-kill-helper"), arguments: arguments, environment: environment, stderr: .inherit)
    }

    /// Reads output until a line satisfies `stop` (true) or the process ends (false).
    func read(until stop: (String) -> Bool) async -> Bool {
        while let line = await child.stdout!.nextLine() {
            lines.append(line)
            if stop(line) { return true }
        }
        return false
    }

    func kill() async {
        child.send(SIGKILL)
        _ = await child.termination
    }

    /// Reads the rest of the output and waits; the exit status (128 + the signal when killed).
    func finish() async -> Int32 {
        _ = await read { _ in false }
        return await child.termination.status
    }
}

@Suite("A sync engine killed mid-save or mid-send loses and duplicates nothing")
struct SyncKillLiveTests {
    @Test func killedDuringSavesAndDuringTheSendThenResumed() async throws {
        let fixture = try await SyncFixture.make()
        let configuration = try #require(fixture.server.configuration(of: fixture.container))
        let store = fixture.folder.appendingPathComponent("killed.sqlite").path
        let count = 150

        // 1. Killed while saving locally: every save it acknowledged must survive.
        let first = try KilledEngineProcess(["save", store, "\(count)", "5"], configuration: configuration)
        #expect(await first.read { $0 == "saved k40" })
        await first.kill()
        let acknowledged = first.lines.filter { $0.hasPrefix("saved ") }.count
        #expect(acknowledged >= 41)
        let afterKill = try fixture.engine("killed")
        for index in 0..<acknowledged {
            #expect(try await afterKill.record(for: CKRecord.ID(recordName: "k\(index)", zoneID: CKRecordZone.ID(zoneName: "killed"))) != nil)
        }

        // 2. Saves the rest, killed while sending (after the server took the first batches).
        let second = try KilledEngineProcess(["save", store, "\(count)", "5"], configuration: configuration)
        var batches = 0
        #expect(
            await second.read { line in
                if line.hasPrefix("sent ") { batches += 1 }
                return batches == 3
            })
        await second.kill()
        let leftAfterKill = try await fixture.engine("killed").pendingRecordIDs().count
        #expect(leftAfterKill > 0 && leftAfterKill < count, "killed part way through the send (\(leftAfterKill) of \(count) still queued)")

        // 3. Resumed: sends what is left.
        let third = try KilledEngineProcess(["resume", store, "5"], configuration: configuration)
        #expect(await third.finish() == 0)
        #expect(third.lines.last == "done")

        // The server holds every record exactly once with its values; the local store agrees.
        let database = fixture.container.privateCloudDatabase
        var onServer: [String: CKRecord] = [:]
        var token: CKServerChangeToken?
        var more = true
        while more {
            let page = try await database.recordZoneChanges(inZoneWith: CKRecordZone.ID(zoneName: "killed"), since: token)
            for (id, result) in page.modificationResultsByID { onServer[id.recordName] = try result.get().record }
            #expect(page.deletions.isEmpty)
            token = page.changeToken
            more = page.moreComing
        }
        #expect(onServer.count == count)
        #expect(onServer.values.allSatisfy { ($0["index"] as? Int).map { "k\($0)" } == $0.recordID.recordName })
        #expect(onServer.values.allSatisfy { ($0["tags"] as? [String]) == ["a", "b"] }, "no list element added twice")

        let reopened = try fixture.engine("killed")
        #expect(try await reopened.pendingRecordIDs().isEmpty)
        let local = try await reopened.records(ofType: "Item")
        #expect(local.count == count)
        let tagsMatch = local.allSatisfy { $0.recordChangeTag == onServer[$0.recordID.recordName]?.recordChangeTag }
        #expect(tagsMatch, "the local store knows the server's current version of every record")
    }
}

@Suite("A CKSyncEngine app killed mid-send resumes from its saved state")
struct CKSyncEngineKillLiveTests {
    @Test func killedDuringTheSendThenRelaunched() async throws {
        let fixture = try await SyncFixture.make()
        let configuration = try #require(fixture.server.configuration(of: fixture.container))
        let file = fixture.folder.appendingPathComponent("engine-store.json").path
        let count = 120

        // Killed after the server took a few batches: the app's saved state is all that survives.
        let first = try KilledEngineProcess(["cksyncengine", file, "\(count)", "5"], configuration: configuration)
        var batches = 0
        #expect(
            await first.read { line in
                if line.hasPrefix("sent ") { batches += 1 }
                return batches == 3
            })
        await first.kill()
        #expect(!first.lines.contains("done"), "killed part way through the send")

        // Relaunched from the saved state: sends the rest (records the server took before the kill
        // but the app had not recorded come back as conflicts, which the app resolves).
        let second = try KilledEngineProcess(["cksyncengine", file, "\(count)", "5"], configuration: configuration)
        #expect(await second.finish() == 0)
        #expect(second.lines.suffix(2) == ["pending 0", "done"])
        #expect(!second.lines.contains { $0.hasPrefix("queued") }, "the second run resumed instead of starting over")

        let zone = CKRecordZone.ID(zoneName: "killed-engine")
        var onServer: [String: CKRecord] = [:]
        var token: CKServerChangeToken?
        var more = true
        while more {
            let page = try await fixture.container.privateCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
            for (id, result) in page.modificationResultsByID { onServer[id.recordName] = try result.get().record }
            token = page.changeToken
            more = page.moreComing
        }
        #expect(onServer.count == count, "every record once")
        #expect(onServer.values.allSatisfy { ($0["index"] as? Int).map { "k\($0)" } == $0.recordID.recordName })
    }
}

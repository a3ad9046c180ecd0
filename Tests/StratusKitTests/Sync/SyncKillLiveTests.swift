import Foundation
import StratusKit
import StratusSync
import Testing

/// Runs `sync-kill-helper` (built next to the test bundle) against the live server and reads its
/// output line by line. Started with `posix_spawn` rather than Foundation's `Process`: on Linux,
/// `Process.run()` launched from several test threads at once (other suites start `stratus`
/// binaries) crashed inside Foundation in a loaded full-suite run.
final class KilledEngineProcess {
    private(set) var pid: pid_t = 0
    private let output: FileHandle
    private var buffer = Data()
    private(set) var lines: [String] = []
    private var status: Int32?

    init(_ arguments: [String], configuration: StratusConfiguration) throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let helper = folder.appendingPathComponent("sync-kill-helper").path
        guard FileManager.default.isExecutableFile(atPath: helper) else {
            throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "build sync-kill-helper first (not found at \(helper))"])
        }
        var environment = ProcessInfo.processInfo.environment
        environment["STRATUS_URL"] = configuration.serverURL.absoluteString
        environment["STRATUS_CONTAINER"] = configuration.containerIdentifier
        environment["STRATUS_API_TOKEN"] = configuration.apiToken
        environment["STRATUS_WEB_AUTH_TOKEN"] = configuration.webAuthToken
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "pipe() failed"]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv = ([helper] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let spawned = posix_spawn(&pid, helper, &actions, nil, argv, envp)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "could not start \(helper): error \(spawned)"])
        }
        output = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
    }

    /// Reads output until a line satisfies `stop` (true) or the process ends (false).
    func read(until stop: (String) -> Bool) -> Bool {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                lines.append(line)
                if stop(line) { return true }
            }
            let chunk = output.availableData
            if chunk.isEmpty { return false }
            buffer.append(chunk)
        }
    }

    func kill() {
        Glibc.kill(pid, SIGKILL)
        _ = waitForExit()
    }

    /// Reads the rest of the output and waits; the exit status (-1 when killed by a signal).
    func finish() -> Int32 {
        _ = read { _ in false }
        return waitForExit()
    }

    private func waitForExit() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // WIFEXITED: the low 7 bits are 0; the exit code is the next byte.
        let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : -1
        status = code
        return code
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
        #expect(first.read { $0 == "saved k40" })
        first.kill()
        let acknowledged = first.lines.filter { $0.hasPrefix("saved ") }.count
        #expect(acknowledged >= 41)
        let afterKill = try fixture.engine("killed")
        for index in 0..<acknowledged {
            #expect(try await afterKill.record(for: CKRecord.ID(recordName: "k\(index)", zoneID: CKRecordZone.ID(zoneName: "killed"))) != nil)
        }

        // 2. Saves the rest, killed while sending (after the server took the first batches).
        let second = try KilledEngineProcess(["save", store, "\(count)", "5"], configuration: configuration)
        var batches = 0
        #expect(second.read { line in
            if line.hasPrefix("sent ") { batches += 1 }
            return batches == 3
        })
        second.kill()
        let leftAfterKill = try await fixture.engine("killed").pendingRecordIDs().count
        #expect(leftAfterKill > 0 && leftAfterKill < count, "killed part way through the send (\(leftAfterKill) of \(count) still queued)")

        // 3. Resumed: sends what is left.
        let third = try KilledEngineProcess(["resume", store, "5"], configuration: configuration)
        #expect(third.finish() == 0)
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

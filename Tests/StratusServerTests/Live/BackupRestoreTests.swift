import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// `stratus backup` against a live server with writers, and `stratus restore` of what it wrote:
/// the restored folder serves every write acknowledged before the backup began. The backup
/// copies a SQLite data folder; PostgreSQL deployments use pg_dump, so the suite runs on SQLite.
@Suite(.enabled(if: !TestBackend.isPostgres, "backup copies a SQLite data folder"))
struct BackupRestoreTests {
    @Test func aBackupTakenUnderWritesRestoresEveryEarlierWrite() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let credentials = try DefaultContainerCredentials(server)
        let archive = folder.root.appendingPathComponent("backup.tar").path
        let (before, backup) = try await AcknowledgedWrites.writing(to: server, credentials: credentials) { acknowledged in
            while acknowledged.count < 200 { try await Task.sleep(for: .milliseconds(10)) }
            let before = acknowledged.all
            let backup = try await StratusBinary.run(["backup", "--to", archive, "--data", folder.data.path])
            #expect(acknowledged.count > before.count, "the writers went on during the backup")
            return (before, backup)
        }
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("backup written to \(archive)"))
        #expect(backup.stderr.contains("backup: database snapshot copied"), "progress is shown")
        let checksumLine = try String(contentsOfFile: archive + ".sha256", encoding: .utf8)
        #expect(checksumLine.hasSuffix("  backup.tar\n") && checksumLine.count == 64 + 2 + 10 + 1)
        #expect(server.terminate() == 0)

        let restored = folder.root.appendingPathComponent("restored")
        let restore = try await StratusBinary.run(["restore", archive, "--data", restored.path])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("checksum verified"))
        let again = try await RunningServer(data: restored, log: folder.log)
        #expect(again.apiToken == nil, "the restored folder is not a first start: its container came back")
        let lost = try await AcknowledgedWrites.missing(before, at: again.baseURL, credentials: credentials)
        #expect(lost.isEmpty, "acknowledged before the backup but not restored: \(lost.prefix(20))")
        let client = HTTPClient(baseURL: again.baseURL)
        let query = try await client.send(credentials.path("records/query"), json: ["query": ["recordType": "Note"], "resultsLimit": 5])
        #expect(query.status == 200 && query.json["records"]?.arrayValue?.count == 5, "\(query.json)")
        #expect(again.terminate() == 0)

        let refused = try await StratusBinary.run(["restore", archive, "--data", restored.path])
        #expect(refused.status != 0 && refused.stderr.contains("is not empty"), "\(refused.stderr)")
        let forced = try await StratusBinary.run(["restore", archive, "--data", restored.path, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    @Test func aDamagedBackupIsRefusedAndTheTargetLeftAlone() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        #expect(server.terminate() == 0)
        let archive = folder.root.appendingPathComponent("backup.tar").path
        let backup = try await StratusBinary.run(["backup", "--to", archive, "--data", folder.data.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        let again = try await StratusBinary.run(["backup", "--to", archive, "--data", folder.data.path])
        #expect(again.status != 0 && again.stderr.contains("already exists"))

        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        bytes[4096] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: archive))
        let target = folder.root.appendingPathComponent("target")
        let damaged = try await StratusBinary.run(["restore", archive, "--data", target.path])
        #expect(damaged.status != 0 && damaged.stderr.contains("damaged"), "\(damaged.stderr)")
        // Without the checksum file, the manifest's entry checksums still catch it.
        try FileManager.default.removeItem(atPath: archive + ".sha256")
        let unchecked = try await StratusBinary.run(["restore", archive, "--data", target.path])
        #expect(unchecked.status != 0 && unchecked.stderr.contains("damaged"), "\(unchecked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.path), "nothing was restored")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.root.path).filter { $0.contains("restoring") }
        #expect(leftovers.isEmpty, "the staging folder was removed: \(leftovers)")
    }

    /// SIGKILL of the server in the middle of a backup: the backup either completes (it reads its
    /// own snapshot) or fails without leaving a backup file, and the folder keeps every
    /// acknowledged write. SIGKILL of the backup itself leaves no backup file either.
    @Test func killsMidBackupLeaveNoHalfBackupAndIntactData() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let credentials = try DefaultContainerCredentials(server)
        let acknowledged = try await AcknowledgedWrites.writing(to: server, credentials: credentials) { acknowledged in
            while acknowledged.count < 300 { try await Task.sleep(for: .milliseconds(10)) }
            return acknowledged
        }
        // Throttled to a trickle, so the kills land while it copies.
        let archive = folder.root.appendingPathComponent("killed-server.tar").path
        let backup = try ChildProcess(
            try StratusBinary.path(),
            arguments: [
                "backup", "--to", archive, "--data", folder.data.path,
                "--max-mb-per-second", "0.2",
            ])
        try await Task.sleep(for: .milliseconds(500))
        server.stop(with: SIGKILL)
        let ended = await backup.termination
        if ended.status == 0 {
            let restore = try await StratusBinary.run(["restore", archive, "--data", folder.root.appendingPathComponent("r").path])
            #expect(restore.status == 0, "a backup that finished restores: \(restore.stderr)")
        } else {
            #expect(!FileManager.default.fileExists(atPath: archive), "a failed backup leaves no file")
        }

        let archive2 = folder.root.appendingPathComponent("killed-backup.tar").path
        let killed = try ChildProcess(
            try StratusBinary.path(),
            arguments: [
                "backup", "--to", archive2, "--data", folder.data.path,
                "--max-mb-per-second", "0.2",
            ])
        try await Task.sleep(for: .milliseconds(500))
        killed.send(SIGKILL)
        _ = await killed.termination
        #expect(!FileManager.default.fileExists(atPath: archive2), "a killed backup leaves no file under the backup's name")

        let restarted = try await RunningServer(data: folder.data, log: folder.log)
        let lost = try await AcknowledgedWrites.missing(acknowledged.all, at: restarted.baseURL, credentials: credentials)
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.prefix(20))")
        #expect(restarted.terminate() == 0)
    }
}

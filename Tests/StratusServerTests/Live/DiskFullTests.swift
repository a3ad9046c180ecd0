import Foundation
import StratusModel
import StratusTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data folder on a small tmpfs that the test fills (#18 item 6): writes answer a retryable
/// 503 TRY_AGAIN_LATER that names the full disk, nothing is half-written, and once space is
/// freed the same server writes again. Needs root to mount; skipped where mounting is refused.
@Suite(.serialized, .enabled(if: SmallDisk.canMount, "mounting a tmpfs needs root (CI runs as root)"))
struct DiskFullTests {
    @Test func writesOnAFullDiskAnswerARetryableErrorAndRecoverWhenSpaceReturns() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let disk = try SmallDisk(at: folder.root.appendingPathComponent("disk"), megabytes: 8)
        defer { disk.unmount() }
        let data = disk.folder.appendingPathComponent("data")
        let server = try await RunningServer(arguments: ["serve", "--port", "0", "--data", data.path, "--idle-poll-us", "0"], log: folder.log)
        defer { _ = server.terminate() }
        let session = try AssetLiveBinaryTests.Session(server)
        let uploadURL = try await session.uploadURL(record: "doc")

        try disk.fill()
        let onSQLite = !TestBackend.isPostgres
        var refusedName: String?
        if onSQLite {
            // SQLite keeps some room in its files: write until the disk says no.
            for index in 0..<200 {
                let name = "full-\(index)"
                let (status, answer) = try await Self.create(name, session: session)
                if status == 200, answer["records"]?[0]?["serverErrorCode"] == nil { continue }
                #expect(status == 503, "\(answer)")
                #expect(answer["serverErrorCode"] == "TRY_AGAIN_LATER")
                #expect(answer["reason"]?.stringValue?.contains("disk is full") == true, "\(answer)")
                #expect(answer["retryAfter"] != nil)
                refusedName = name
                break
            }
            #expect(refusedName != nil, "a write failed once the disk was full")
        }
        let upload = try await Self.upload(megabytes: 1, to: uploadURL)
        #expect(upload.status == 503, "\(upload.json)")
        #expect(upload.json["serverErrorCode"] == "TRY_AGAIN_LATER")
        #expect(upload.json["reason"]?.stringValue?.contains("disk is full") == true, "\(upload.json)")
        let spool = data.appendingPathComponent("spool")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []).isEmpty, "no partial upload is left")

        disk.free()
        if let refusedName {
            let lookup = try await session.call("records/lookup", ["records": [["recordName": .string(refusedName)]]])
            #expect(lookup["records"]?[0]?["serverErrorCode"] == "NOT_FOUND", "nothing of the refused write was saved")
            let (status, answer) = try await Self.create(refusedName, session: session)
            #expect(status == 200 && answer["records"]?[0]?["recordName"]?.stringValue == refusedName, "\(answer)")
        }
        let retried = try await Self.upload(megabytes: 1, to: uploadURL)
        #expect(retried.status == 200, "the same server accepts the upload once space is back: \(retried.json)")
        #expect(!((try? String(contentsOf: folder.log, encoding: .utf8)) ?? "").contains("internal error"))
    }

    static func create(_ name: String, session: AssetLiveBinaryTests.Session) async throws -> (Int, JSONValue) {
        var request = URLRequest(url: URL(string: session.base + "records/modify" + session.query)!)
        request.httpMethod = "POST"
        let record: JSONValue = [
            "recordType": "Note", "recordName": .string(name),
            "fields": ["title": ["value": .string(String(repeating: "x", count: 20_000))]],
        ]
        request.httpBody = JSONValue.object(["operations": [["operationType": "create", "record": record]]]).serializedData
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONValue.parse(body))
    }

    static func upload(megabytes: Int, to url: URL) async throws -> (status: Int, json: JSONValue) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let (body, response) = try await URLSession.shared.upload(for: request, from: Data(repeating: 7, count: megabytes << 20))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONValue.parse(body))
    }
}

/// A tmpfs of a few megabytes mounted for one test.
struct SmallDisk {
    let folder: URL
    var filler: URL { folder.appendingPathComponent("filler") }

    /// Whether this process may mount (root, and mount(8) works here).
    static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-mount-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe.path]) == 0 else { return false }
        return run("/bin/umount", [probe.path]) == 0
    }()

    init(at folder: URL, megabytes: Int) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", folder.path]) == 0 else {
            throw RawHTTPConnection.Failure(description: "cannot mount a tmpfs at \(folder.path)")
        }
    }

    /// Writes zeros until the disk has no room left.
    func fill() throws {
        _ = Self.run("/bin/dd", ["if=/dev/zero", "of=\(filler.path)", "bs=64k"])
    }

    func free() { try? FileManager.default.removeItem(at: filler) }

    func unmount() { _ = Self.run("/bin/umount", ["-l", folder.path]) }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        guard let child = try? ChildProcess(executable, arguments: arguments, stdout: .discard, stderr: .discard) else { return -1 }
        return child.waitUntilExit().status
    }
}

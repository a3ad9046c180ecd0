import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusEngine
import StratusModel
import StratusTestSupport
import Testing

/// Assets through the real `stratus` binary over a socket: streaming a file far larger than any
/// buffer, and a server killed with SIGKILL in the middle of an upload.
/// Runs only when `STRATUS_LARGE_TESTS=1`: `scripts/test` runs this suite on its own after the main
/// suite. Writing and hashing 200 MB alongside the other suites throttled every process writing to
/// the disk (the kernel's dirty-page limits) until unrelated live tests timed out.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["STRATUS_LARGE_TESTS"] == "1",
        "large-file tests run on their own: STRATUS_LARGE_TESTS=1 (scripts/test does this)"),
    .serialized)
struct AssetLiveBinaryTests {
    /// The default container's credentials from the first start's welcome lines.
    struct Session {
        let server: RunningServer
        let base: String
        let query: String

        init(_ server: RunningServer, lines: [String]? = nil) throws {
            let lines = lines ?? server.startupLines
            let token = try #require(lines.first { $0.hasPrefix("API token: ") }).dropFirst("API token: ".count)
            let user = try #require(lines.first { $0.hasPrefix("web auth token (user developer): ") })
                .dropFirst("web auth token (user developer): ".count)
            self.server = server
            self.base = server.baseURL + "/database/1/iCloud.dev.stratus.default/development/public/"
            self.query = "?ckAPIToken=\(token)&ckWebAuthToken=\(WebToken.escape(String(user)))"
        }

        func call(_ operation: String, _ json: JSONValue) async throws -> JSONValue {
            var request = URLRequest(url: URL(string: base + operation + query)!)
            request.httpMethod = "POST"
            request.httpBody = json.serializedData
            let (data, _) = try await URLSession.shared.data(for: request)
            return try JSONValue.parse(data)
        }

        func uploadURL(record: String) async throws -> URL {
            let answer = try await call("assets/upload", ["tokens": [["recordName": .string(record), "recordType": "Doc", "fieldName": "file"]]])
            return try #require(answer["tokens"]?[0]?["url"]?.stringValue.flatMap(URL.init(string:)))
        }
    }

    /// A file of `megabytes` MB of pseudo-random bytes, written in 1 MB pieces; answers its SHA-256.
    static func makeFile(_ url: URL, megabytes: Int) throws -> String {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        for piece in 0..<megabytes {
            let bytes = sampleBytes(1 << 20, seed: UInt64(piece + 1))
            hasher.update(data: bytes)
            try handle.write(contentsOf: bytes)
        }
        return hexString(hasher.finalize())
    }

    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        return hexString(hasher.finalize())
    }

    static func upload(_ file: URL, to url: URL) async throws -> (status: Int, json: JSONValue) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = 600
        let (data, response) = try await URLSession.shared.upload(for: request, fromFile: file)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONValue.parse(data))
    }

    /// Uploads `file` with the `curl` command, for an upload that the test interrupts by killing
    /// the server. URLSession's file upload crashed the test process there: FoundationNetworking
    /// hits a `try!` (libcurl error 43 while pausing the body stream) when the connection dies
    /// mid-body. curl just exits with an error. Returns curl's exit status.
    static func uploadWithCurl(_ file: URL, to url: URL) async throws -> Int32 {
        let curl = try ChildProcess(
            "curl",
            arguments: [
                "-s", "-o", "/dev/null", "--max-time", "600", "--limit-rate", "20M",
                "--data-binary", "@" + file.path, url.absoluteString,
            ],
            stdout: .discard, stderr: .discard)
        return await curl.termination.status
    }

    /// Saves the asset in record `name`, fetches it, downloads it to a file and answers the file.
    static func saveAndDownload(_ session: Session, record name: String, asset: JSONValue, into folder: URL) async throws -> URL {
        let saved = try await session.call(
            "records/modify",
            [
                "operations": [
                    [
                        "operationType": "create",
                        "record": [
                            "recordName": .string(name), "recordType": "Doc",
                            "fields": ["file": ["value": asset]],
                        ],
                    ]
                ]
            ])
        #expect(saved.record(0)?["serverErrorCode"] == nil, "\(saved)")
        let fetched = try await session.call("records/lookup", ["records": [["recordName": .string(name)]]])
        let link = try #require(fetched.record(0)?["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)
        var request = URLRequest(url: URL(string: link.replacingOccurrences(of: "${f}", with: "big.bin"))!)
        request.timeoutInterval = 600
        let (temporary, response) = try await URLSession.shared.download(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let destination = folder.appendingPathComponent("downloaded-\(name)")
        try FileManager.default.moveItem(at: temporary, to: destination)
        return destination
    }

    @Test func twoHundredMegabytesRoundTripByteIdentical() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(
            arguments: ["serve", "--port", "0", "--data", folder.data.path, "--max-asset-mb", "250"],
            log: folder.log)
        defer { _ = server.terminate() }
        let session = try Session(server)
        let file = folder.root.appendingPathComponent("big.bin")
        let checksum = try Self.makeFile(file, megabytes: 200)
        let (status, answer) = try await Self.upload(file, to: try await session.uploadURL(record: "big"))
        #expect(status == 200)
        let single = try #require(answer["singleFile"])
        #expect(single["size"]?.int64Value == 200 << 20)
        #expect(single["fileChecksum"]?.stringValue == checksum)
        try? FileManager.default.removeItem(at: file)
        let downloaded = try await Self.saveAndDownload(session, record: "big", asset: single, into: folder.root)
        #expect(try Self.sha256(of: downloaded) == checksum)
        #expect(try FileManager.default.attributesOfItem(atPath: downloaded.path)[.size] as? Int == 200 << 20)
    }

    @Test func serverKilledMidUploadLeavesNoPartialAssetAndTheRetrySucceeds() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let session = try Session(server)
        let file = folder.root.appendingPathComponent("upload.bin")
        let checksum = try Self.makeFile(file, megabytes: 40)
        let url = try await session.uploadURL(record: "doc")
        let spool = folder.data.appendingPathComponent("blobs/incoming")
        let blobs = folder.data.appendingPathComponent("blobs/sha256")

        // Start the upload (at 20 MB/s, so it is still running when the spool passes 1 MB), and
        // kill the server once part of it has reached the spool file.
        let upload = Task { try? await Self.uploadWithCurl(file, to: url) }
        var spooled = 0
        for _ in 0..<600 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []
            spooled = names.compactMap { try? FileManager.default.attributesOfItem(atPath: spool.appendingPathComponent($0).path)[.size] as? Int }.max() ?? 0
            if spooled > 1 << 20 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        server.stop(with: SIGKILL)
        _ = await upload.value
        #expect(spooled > 0, "the kill happened while bytes were arriving")
        #expect(spooled < 40 << 20, "the kill happened before the upload finished")
        let stored = (try? FileManager.default.subpathsOfDirectory(atPath: blobs.path))?.filter { $0.count > 60 } ?? []
        #expect(stored.isEmpty, "no blob is visible after a killed upload")

        // Restart on the same folder; the same upload URL (signed with the folder's secret) works.
        let restarted = try await RunningServer(data: folder.data, log: folder.log)
        defer { _ = restarted.terminate() }
        let again = try Session(restarted, lines: server.startupLines)
        let (status, answer) = try await Self.upload(file, to: URL(string: url.absoluteString.replacingOccurrences(of: server.baseURL, with: restarted.baseURL))!)
        #expect(status == 200)
        let single = try #require(answer["singleFile"])
        #expect(single["fileChecksum"]?.stringValue == checksum)
        let downloaded = try await Self.saveAndDownload(again, record: "doc", asset: single, into: folder.root)
        #expect(try Self.sha256(of: downloaded) == checksum)
    }
}

import AsyncHTTPClient
import Foundation
import StratusS3
import StratusTestSupport

/// A real S3-compatible server for tests: moto (PyPI `moto[server]`) in server mode on a free
/// loopback port, with a bucket made for the test. `.ci/run` installs moto when it is missing.
final class MotoServer: Sendable {
    let process: ChildProcess
    let endpoint: URL
    let log: URL

    struct Unavailable: Error, CustomStringConvertible { let description: String }

    /// Starts moto and waits until it answers.
    ///
    /// The port is free when picked but not reserved, so a parallel test can pick it too. Then one
    /// moto fails to bind ("Address already in use", after its slow start), and a probe answered by
    /// the *other* test's moto must not count: that one stops with its test, and requests here
    /// would be refused from then on (a CI run failed that way). So the server counts as up only
    /// once its own log says it is running on the port, and a taken port is retried with another.
    static func start() async throws -> MotoServer {
        try RequiredTool.moto.require()
        for _ in 1...3 {
            if let server = try await launch(port: try freePort()) { return server }
        }
        throw Unavailable(description: "moto_server found its port taken three times in a row; are many tests starting servers at once?")
    }

    /// Starts moto on `port`; nil when another program took the port first.
    private static func launch(port: Int) async throws -> MotoServer? {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString).log")
        let process: ChildProcess
        do {
            process = try ChildProcess(
                "moto_server", arguments: ["-H", "127.0.0.1", "-p", String(port)],
                stdout: .appending(to: log.path), stderr: .appending(to: log.path))
        } catch {
            throw Unavailable(description: "cannot run moto_server (\(error)); install it with `pip install 'moto[server]'` (.ci/run does)")
        }
        let server = MotoServer(process: process, endpoint: URL(string: "http://127.0.0.1:\(port)")!, log: log)
        let running = "Running on \(server.endpoint.absoluteString)"
        // A minute at most, however long each attempt takes (a hung connection times out after 2 s).
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline {
            if server.output.contains(running) {
                var request = HTTPClientRequest(url: server.endpoint.absoluteString + "/moto-api/")
                request.method = .GET
                if let response = try? await AsyncHTTPClient.HTTPClient.shared.execute(request, timeout: .seconds(2)) {
                    _ = try? await response.body.collect(upTo: 1 << 20)
                    return server
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let output = server.output
        await server.stop()
        if output.contains("Address already in use") { return nil }
        throw Unavailable(description: "moto_server did not answer on port \(port); its output:\n\(output.suffix(2000))")
    }

    /// What moto has printed so far.
    private var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    private init(process: ChildProcess, endpoint: URL, log: URL) {
        self.process = process
        self.endpoint = endpoint
        self.log = log
    }

    /// A blob store on a new bucket of this server (moto accepts any credentials).
    func makeBlobStore() async throws -> S3BlobStore {
        let bucket = "stratus-test-\(UUID().uuidString.prefix(8).lowercased())"
        let store = S3BlobStore(
            configuration: S3Configuration(
                endpoint: endpoint, bucket: bucket, accessKeyID: "testing",
                secretAccessKey: "testing-secret"))
        try await store.createBucketIfMissing()
        return store
    }

    func stop() async {
        // moto's development server ignores SIGTERM; Ctrl-C (SIGINT) stops it, SIGKILL if it
        // lingers past 5 s.
        process.send(SIGINT)
        let killer = process.send(SIGKILL, after: .seconds(5))
        _ = await process.termination
        killer.cancel()
        try? FileManager.default.removeItem(at: log)
    }

    /// Runs `body` with a fresh moto server, stopped afterwards whatever happens.
    static func with<T: Sendable>(_ body: (MotoServer) async throws -> T) async throws -> T {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0); also nginx's in FleetTests.
    static func freePort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(socketFD, pointer, length) == 0 else { return -1 }
                return getsockname(socketFD, pointer, &length)
            }
        }
        guard bound == 0 else { throw Unavailable(description: "cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

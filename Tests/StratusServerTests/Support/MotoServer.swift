import AsyncHTTPClient
import Foundation
import StratusS3
import StratusTestSupport

/// A real S3-compatible server for tests: moto (PyPI `moto[server]`) in server mode on a free
/// loopback port, with a bucket made for the test. `.ci/run` installs moto when it is missing.
///
/// moto enforces authentication here: after the three unsigned requests
/// `Tests/Tools/moto_credentials.py` spends on making an IAM user, its key and a role, every
/// request's Signature V4 is checked against the keys moto's IAM knows, so a wrong signature, key
/// or session token fails the test instead of passing unnoticed.
final class MotoServer: Sendable {
    let process: ChildProcess
    let endpoint: URL
    let log: URL
    /// Keys moto's IAM knows, made when the server started.
    let credentials: Credentials

    /// A long-term access key and temporary credentials (an assumed role) for the same account.
    struct Credentials: Sendable, Decodable {
        struct Temporary: Sendable, Decodable {
            let accessKeyID: String
            let secretAccessKey: String
            let sessionToken: String
        }
        let accessKeyID: String
        let secretAccessKey: String
        let temporary: Temporary

        static let none = Credentials(
            accessKeyID: "", secretAccessKey: "", temporary: Temporary(accessKeyID: "", secretAccessKey: "", sessionToken: ""))
    }

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
            if let server = try await launch(port: try freePort()) {
                do {
                    return MotoServer(
                        process: server.process, endpoint: server.endpoint, log: server.log,
                        credentials: try await server.makeCredentials())
                } catch {
                    await server.stop()
                    throw error
                }
            }
        }
        throw Unavailable(description: "moto_server found its port taken three times in a row; are many tests starting servers at once?")
    }

    /// Starts moto on `port`; nil when another program took the port first.
    private static func launch(port: Int) async throws -> MotoServer? {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString).log")
        let process: ChildProcess
        do {
            var environment = ProcessInfo.processInfo.environment
            environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
            process = try ChildProcess(
                "moto_server", arguments: ["-H", "127.0.0.1", "-p", String(port)], environment: environment,
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

    /// Runs `Tests/Tools/moto_credentials.py` against this server (before any other request: it
    /// spends the unsigned ones).
    private func makeCredentials() async throws -> Credentials {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tools/moto_credentials.py")
        let child = try ChildProcess("python3", arguments: [script.path, endpoint.absoluteString], stdout: .pipe, stderr: .pipe)
        async let output = child.stdout!.text()
        async let errors = child.stderr!.text()
        let (text, problems) = await (output, errors)
        guard await child.termination == .exited(0), let credentials = try? JSONDecoder().decode(Credentials.self, from: Data(text.utf8)) else {
            throw Unavailable(description: "could not make credentials on moto with \(script.path): \(problems.suffix(2000))")
        }
        return credentials
    }

    /// What moto has printed so far.
    private var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    private init(process: ChildProcess, endpoint: URL, log: URL, credentials: Credentials = .none) {
        self.process = process
        self.endpoint = endpoint
        self.log = log
        self.credentials = credentials
    }

    /// Which of the server's credentials a blob store signs with.
    enum Signing: Sendable {
        /// The long-term access key.
        case accessKey
        /// The assumed role's temporary key and its session token.
        case temporary
        /// The access key with a secret moto does not know: every request is refused.
        case wrongSecret
        /// The temporary key without its session token: every request is refused.
        case temporaryWithoutToken
    }

    /// A configuration for a new bucket of this server.
    func configuration(_ signing: Signing = .accessKey, prefix: String = "blobs/") -> S3Configuration {
        let bucket = "stratus-test-\(UUID().uuidString.prefix(8).lowercased())"
        let temporary = credentials.temporary
        switch signing {
        case .accessKey:
            return S3Configuration(
                endpoint: endpoint, bucket: bucket, accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey, prefix: prefix)
        case .temporary:
            return S3Configuration(
                endpoint: endpoint, bucket: bucket, accessKeyID: temporary.accessKeyID,
                secretAccessKey: temporary.secretAccessKey, sessionToken: temporary.sessionToken, prefix: prefix)
        case .wrongSecret:
            return S3Configuration(
                endpoint: endpoint, bucket: bucket, accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey + "x", prefix: prefix)
        case .temporaryWithoutToken:
            return S3Configuration(
                endpoint: endpoint, bucket: bucket, accessKeyID: temporary.accessKeyID,
                secretAccessKey: temporary.secretAccessKey, prefix: prefix)
        }
    }

    /// A blob store on a new bucket of this server, the bucket made.
    func makeBlobStore(_ signing: Signing = .accessKey, prefix: String = "blobs/") async throws -> S3BlobStore {
        let store = S3BlobStore(configuration: configuration(signing, prefix: prefix))
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

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import StratusTestSupport
import Testing

/// The built `stratus` executable, run as a child process the way a user runs it.
enum StratusBinary {
    /// `STRATUS_BINARY`, else `stratus` next to the test bundle (same build products folder).
    static func path() throws -> String { try BuiltProduct.path("stratus", override: "STRATUS_BINARY") }

    /// The test process's environment with `extra` on top.
    static func environment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    }

    /// Runs a one-shot command (`container create …`) to completion.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let backend = try await TestBackend.commandEnvironment(arguments: arguments)
        SecretLedger.recordSecrets(inEnvironment: extra)
        let child = try ChildProcess(try path(), arguments: arguments, environment: environment(backend.merging(extra) { _, new in new }))
        let stdout = await child.stdout!.text(), stderr = await child.stderr!.text()
        SecretLedger.recordPrinted(stdout.split(separator: "\n").map(String.init))
        return (await child.termination.status, stdout, stderr)
    }
}

/// A `stratus serve` child process on port 0.
final class RunningServer {
    let process: ChildProcess
    /// Lines printed on stdout up to and including `listening on …`.
    let startupLines: [String]
    /// `http://127.0.0.1:PORT`.
    let baseURL: String

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    /// Starts `stratus serve --port 0 --data DATA` (stderr to `log`) and waits for `listening on`.
    convenience init(data: URL, log: URL, port: Int = 0, timeout: Duration = .seconds(60)) async throws {
        try await self.init(arguments: ["serve", "--port", String(port), "--data", data.path], log: log, timeout: timeout)
    }

    /// Starts `stratus` with exactly `arguments` and extra environment variables; stderr is
    /// appended to `log`. `launcher` runs it through another program (`prlimit … --`).
    /// `binary`: another build of the server (an app's own, made with StratusApp).
    init(
        arguments: [String], environment extra: [String: String] = [:], log: URL, timeout: Duration = .seconds(60),
        launcher: [String] = [], binary: String? = nil
    ) async throws {
        let backend = try await TestBackend.commandEnvironment(arguments: arguments)
        SecretLedger.recordSecrets(inEnvironment: extra)
        let command = launcher + [try binary ?? StratusBinary.path()] + arguments
        let process = try ChildProcess(
            command[0], arguments: Array(command.dropFirst()),
            environment: StratusBinary.environment(backend.merging(extra) { _, new in new }),
            stderr: .appending(to: log.path))
        self.process = process
        // Past the timeout the server is killed, which ends its stdout and the loop below.
        let watchdog = process.send(SIGKILL, after: timeout)
        defer { watchdog.cancel() }
        var lines: [String] = []
        while let line = await process.stdout!.nextLine() {
            lines.append(line)
            if line.hasPrefix("listening on ") { break }
        }
        guard let listening = lines.last, listening.hasPrefix("listening on ") else {
            process.send(SIGKILL)
            let ended = await process.termination
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw StartFailure(
                description: "stratus did not print 'listening on' within \(timeout) (it ended: \(ended)); stdout:\n"
                    + lines.joined(separator: "\n") + "\nstderr:\n\(logText)")
        }
        SecretLedger.recordPrinted(lines)
        self.startupLines = lines
        self.baseURL = String(listening.dropFirst("listening on ".count))
    }

    /// Sends `signal` and waits for the process to end; returns its exit status (128 + the
    /// signal's number when a signal ended it).
    @discardableResult
    func stop(with signal: Int32) -> Int32 {
        process.send(signal)
        return process.waitUntilExit().status
    }

    /// SIGTERM and wait; returns the exit status.
    func terminate() -> Int32 { stop(with: SIGTERM) }

    /// The API token the first start printed.
    var apiToken: String? {
        startupLines.first { $0.hasPrefix("API token: ") }.map { String($0.dropFirst("API token: ".count)) }
    }

    var isRunning: Bool { process.isRunning }
}

/// A minimal CKWS client over URLSession.
struct HTTPClient: Sendable {
    let baseURL: String
    let session: URLSession

    init(baseURL: String) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        self.session = URLSession(configuration: configuration)
    }

    func send(_ path: String, method: String = "POST", json: JSONValue? = nil) async throws -> (status: Int, json: JSONValue) {
        SecretLedger.recordCredentials(inPath: path)
        SecretLedger.recordCredentials(in: json)
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = json.serializedData
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let answer = data.isEmpty ? JSONValue.null : try JSONValue.parse(data)
        SecretLedger.recordCredentials(in: answer)
        return (status, answer)
    }
}

/// A temporary folder holding `data/` and `stderr.log`, removed by `remove()`.
struct LiveFolder {
    let root: URL
    var data: URL { root.appendingPathComponent("data") }
    var log: URL { root.appendingPathComponent("stderr.log") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Checks the server log for secrets the tests used (see `SecretLedger`), then deletes the folder.
    func remove(sourceLocation: SourceLocation = #_sourceLocation) {
        SecretLedger.checkLog(log, sourceLocation: sourceLocation)
        try? FileManager.default.removeItem(at: root)
    }
}

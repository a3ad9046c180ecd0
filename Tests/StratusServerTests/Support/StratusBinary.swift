import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel

/// The built `stratus` executable, run as a child process the way a user runs it.
enum StratusBinary {
    struct NotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String { "stratus binary not found (looked in \(searched.joined(separator: ", "))); build it or set STRATUS_BINARY" }
    }

    /// `STRATUS_BINARY`, else `stratus` next to the test bundle (same build products folder).
    static func url() throws -> URL {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["STRATUS_BINARY"] { candidates.append(URL(fileURLWithPath: explicit)) }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.appendingPathComponent("stratus"))
            folder = folder.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("stratus"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
        }
        throw NotFound(searched: candidates.map(\.path))
    }

    /// Runs a one-shot command (`container create …`) to completion.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try url()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

/// A `stratus serve` child process on port 0.
final class RunningServer {
    let process: Process
    /// Lines printed on stdout up to and including `listening on …`.
    let startupLines: [String]
    /// `http://127.0.0.1:PORT`.
    let baseURL: String

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    /// Starts `stratus serve --port 0 --data DATA` (stderr to `log`) and waits for `listening on`.
    convenience init(data: URL, log: URL, port: Int = 0, timeout: Duration = .seconds(60)) async throws {
        try await self.init(arguments: ["serve", "--port", String(port), "--data", data.path], log: log, timeout: timeout)
    }

    /// Starts `stratus` with exactly `arguments` and extra environment variables.
    init(arguments: [String], environment extra: [String: String] = [:], log: URL, timeout: Duration = .seconds(60)) async throws {
        let process = Process()
        process.executableURL = try StratusBinary.url()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        try logHandle.seekToEnd()
        process.standardError = logHandle
        let out = Pipe()
        process.standardOutput = out
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
            } else {
                continuation.yield(data)
            }
        }
        try process.run()
        self.process = process
        let lines = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var buffer = Data()
                var lines: [String] = []
                for await chunk in chunks {
                    buffer.append(chunk)
                    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                        buffer = Data(buffer[buffer.index(after: newline)...])
                        if lines.last!.hasPrefix("listening on ") { return lines }
                    }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let lines, let listening = lines.last else {
            process.terminate()
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw StartFailure(description: "stratus did not print 'listening on' in time; stderr:\n\(logText)")
        }
        self.startupLines = lines
        self.baseURL = String(listening.dropFirst("listening on ".count))
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(with signal: Int32) -> Int32 {
        _ = Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGTERM and wait; returns the exit status.
    func terminate() -> Int32 { stop(with: SIGTERM) }

    deinit {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }
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
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = json.serializedData
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? .null : try JSONValue.parse(data))
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

    func remove() { try? FileManager.default.removeItem(at: root) }
}

import Foundation
import StratusModel
import Synchronization
import Testing

/// The default container's tokens on a first start, and the public-database paths they open.
struct DefaultContainerCredentials {
    let token: String
    let user: String

    init(_ server: RunningServer) throws {
        token = try #require(server.apiToken)
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        user = WebToken.escape(String(userLine.dropFirst("web auth token (user developer): ".count)))
    }

    func path(_ operation: String) -> String {
        "/database/1/iCloud.dev.stratus.default/development/public/\(operation)?ckAPIToken=\(token)&ckWebAuthToken=\(user)"
    }
}

/// Several clients creating one record per request against a live server, remembering every
/// create the server acknowledged: the durability and backup tests kill or copy the server
/// meanwhile and then look for each acknowledged name.
enum AcknowledgedWrites {
    /// Runs `clients` writers until `body` returns. A refused or failed request is retried after a
    /// short pause (and the first one remembered in the ledger): a writer that gave up early once
    /// left a loaded run with too few acknowledged writes.
    static func writing<T>(
        to server: RunningServer, credentials: DefaultContainerCredentials, clients: Int = 4,
        while body: (WriteLedger) async throws -> T
    ) async throws -> T {
        let client = HTTPClient(baseURL: server.baseURL)
        let ledger = WriteLedger()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<clients {
                group.addTask {
                    var sequence = 0
                    while !ledger.stopped {
                        let name = "w\(writer)-\(sequence)"
                        sequence += 1
                        do {
                            let response = try await client.send(credentials.path("records/modify"), json: createBody([name]))
                            if response.status == 200, response.json.record(0)?["serverErrorCode"] == nil {
                                ledger.append(name)
                                continue
                            }
                            ledger.failed("HTTP \(response.status): \(response.json)")
                        } catch {
                            ledger.failed("\(error)")
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            defer { ledger.stop() }
            let result = try await body(ledger)
            ledger.stop()
            try await group.waitForAll()
            return result
        }
    }

    /// The names a server at `baseURL` does not have.
    static func missing(_ names: [String], at baseURL: String, credentials: DefaultContainerCredentials) async throws -> [String] {
        let client = HTTPClient(baseURL: baseURL)
        var missing: [String] = []
        for start in stride(from: 0, to: names.count, by: 200) {
            let batch = Array(names[start..<min(start + 200, names.count)])
            let response = try await client.send(credentials.path("records/lookup"), json: ["records": .array(batch.map { ["recordName": .string($0)] })])
            #expect(response.status == 200, "lookup of acknowledged names: HTTP \(response.status)")
            for (position, name) in batch.enumerated()
            where response.json.record(position)?["recordName"]?.stringValue != name
                || response.json.record(position)?["serverErrorCode"] != nil
            {
                missing.append(name)
            }
        }
        return missing
    }
}

/// What the writers had acknowledged, whether they should stop, and their first failed request.
final class WriteLedger: Sendable {
    private let state = Mutex<(names: [String], stopped: Bool, firstFailure: String?)>(([], false, nil))
    func append(_ name: String) { state.withLock { $0.names.append(name) } }
    var count: Int { state.withLock { $0.names.count } }
    var all: [String] { state.withLock { $0.names } }
    var stopped: Bool { state.withLock { $0.stopped } }
    var firstFailure: String? { state.withLock { $0.firstFailure } }
    func stop() { state.withLock { $0.stopped = true } }
    func failed(_ description: String) { state.withLock { $0.firstFailure = $0.firstFailure ?? description } }
}

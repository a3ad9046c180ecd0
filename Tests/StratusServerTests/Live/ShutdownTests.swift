import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// SIGTERM with a web-courier long poll and a Server-Sent Events stream open: the poll answers
/// at once with an empty body, the stream ends cleanly, and the server exits 0 long before the
/// courier timeout would have let them go.
@Suite struct ShutdownTests {
    @Test func sigtermClosesCourierStreamsCleanly() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let apiToken = try #require(server.apiToken)
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        let user = WebToken.escape(String(userLine.dropFirst("web auth token (user developer): ".count)))
        let client = HTTPClient(baseURL: server.baseURL)
        let created = try await client.send(
            "/device/1/iCloud.dev.stratus.default/development/tokens/create?ckAPIToken=\(apiToken)&ckWebAuthToken=\(user)",
            json: ["apnsEnvironment": "development"])
        let courier = try #require(created.json["webcourierURL"]?.stringValue, "\(created.json)")

        let stream = try ChildProcess("curl", arguments: ["-sN", "--max-time", "60", courier + "/events"])
        let pollPath = String(courier.dropFirst(server.baseURL.count))
        let poll = Task { try await client.send(pollPath, method: "GET") }
        try await Task.sleep(for: .seconds(1))
        let started = ContinuousClock.now
        let status = server.terminate()
        let stopped = ContinuousClock.now - started
        #expect(status == 0)
        #expect(stopped < .seconds(20), "the server waited \(stopped) for its courier clients")
        let answer = try await poll.value
        #expect(answer.status == 200 && answer.json == .null, "the long poll ends with an empty body: poll again")
        #expect(await stream.termination.status == 0, "curl saw the event stream end cleanly, not cut")
    }
}

import Foundation
import StratusModel
import Testing

/// `stratus webhook` against a running server: what it adds is delivered, signed, to a real
/// receiver; list never shows the secret; bad flags and unknown ids are errors that say why.
@Suite struct WebhookCommandTests {
    @Test func addedWebhookReceivesChangesAndTheCommandsExplainMistakes() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let credentials = try DefaultContainerCredentials(server)
        let dataArgs = ["--data", folder.data.path]
        let container = ["--container", "iCloud.dev.stratus.default"]

        let added = try await StratusBinary.run(["webhook", "add", "--url", receiver.url, "--record-type", "Order"] + container + dataArgs)
        #expect(added.status == 0, "stderr: \(added.stderr)")
        let webhook = try JSONValue.parse(added.stdout)
        let id = try #require(webhook["id"]?.stringValue)
        let secret = try #require(webhook["secret"]?.stringValue)
        receiver.secret.withLock { $0 = secret }

        // The server hears of a new webhook within its 2 s cache.
        try await Task.sleep(for: .seconds(3))
        let client = HTTPClient(baseURL: server.baseURL)
        let answer = try await client.send(credentials.path("records/modify"), json: createBody(["o1"], type: "Order"))
        #expect(answer.status == 200)
        let deadline = ContinuousClock.now + .seconds(20)
        while receiver.deliveries.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(receiver.deliveries.map { $0.body["recordName"] } == ["o1"])
        #expect(receiver.refused.withLock { $0 }.isEmpty)

        let listed = try await StratusBinary.run(["webhook", "list"] + container + dataArgs)
        #expect(try JSONValue.parse(listed.stdout).arrayValue?.map { $0["id"] } == [.string(id)])
        #expect(!listed.stdout.contains(secret), "list never shows the secret")

        let badEvent = try await StratusBinary.run(["webhook", "add", "--url", receiver.url, "--event", "save"] + container + dataArgs)
        #expect(badEvent.status != 0)
        #expect(badEvent.stderr.contains("--event save: use create, update, delete"))

        let privateData = try await StratusBinary.run(["webhook", "add", "--url", receiver.url, "--database-scope", "private"] + container + dataArgs)
        #expect(privateData.status != 0)
        #expect(privateData.stderr.contains("--private-data"))

        #expect(try await StratusBinary.run(["webhook", "remove", id] + dataArgs).status == 0)
        let again = try await StratusBinary.run(["webhook", "remove", id] + dataArgs)
        #expect(again.status != 0)
        #expect(again.stderr.contains("no webhook has the id \(id)"))
        #expect(server.terminate() == 0)
    }
}

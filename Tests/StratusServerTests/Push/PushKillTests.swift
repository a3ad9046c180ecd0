import Crypto
import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// The push queue survives the server being killed: the real binary, configured with
/// `stratus push apns`, SIGKILLed while pushes wait for a fake APNs that holds every request.
@Suite struct PushKillTests {
    @Test("SIGKILL with pushes queued: after the restart every push is delivered exactly once")
    func queuedPushesSurviveKill() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let certificate = try await TestCertificate.make(in: folder.root)
        let key = P256.Signing.PrivateKey()
        let fake = try await FakeAPNs.start(
            certificate: certificate, key: key, keyID: "KEY1234567", teamID: "TEAM123456",
            topic: "com.example.notes")
        defer { fake.stop() }
        let environment = ["STRATUS_PUSH_CA_FILE": certificate.certificatePath]
        let serve = ["serve", "--port", "0", "--data", folder.data.path]
        let server = try await RunningServer(arguments: serve, environment: environment, log: folder.log)
        let keyFile = folder.root.appendingPathComponent("AuthKey.p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let configured = try await StratusBinary.run([
            "push", "apns", "--container", "iCloud.dev.stratus.default", "--key", keyFile.path, "--key-id", "KEY1234567",
            "--team-id", "TEAM123456", "--topic", "com.example.notes", "--endpoint", fake.endpoint, "--data", folder.data.path,
        ])
        #expect(configured.status == 0, "\(configured.stderr)")

        let apiToken = String(try #require(server.startupLines.first { $0.hasPrefix("API token: ") }).dropFirst("API token: ".count))
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        let user = WebToken.escape(String(userLine.dropFirst("web auth token (user developer): ".count)))
        func path(_ operation: String) -> String {
            "/database/1/iCloud.dev.stratus.default/development/public/\(operation)?ckAPIToken=\(apiToken)&ckWebAuthToken=\(user)"
        }
        let client = HTTPClient(baseURL: server.baseURL)
        let devices = (0..<5).map(deviceToken)
        for device in devices {
            let registered = try await client.send(
                path("tokens/register"),
                json: [
                    "apnsEnvironment": "development", "apnsToken": .string(Data(deviceTokenBytes(device)).base64EncodedString()),
                ])
            #expect(registered.status == 200, "\(registered.json)")
        }
        #expect(try await client.send(path("records/modify"), json: createBody(["seed"], type: "Item")).status == 200)
        let subscribed = try await client.send(
            path("subscriptions/modify"),
            json: [
                "operations": [["operationType": "create", "subscription": querySubscription("all", info: ["alertBody": "hi"])]]
            ])
        #expect(subscribed.status == 200, "\(subscribed.json)")

        // Ten records delivered while the server runs, ten more queued when it is killed.
        #expect(try await client.send(path("records/modify"), json: createBody((0..<10).map { "a\($0)" }, type: "Item")).status == 200)
        #expect(try await eventually { fake.accepted.count >= 50 })
        fake.state.withLock { $0.holding = true }
        #expect(try await client.send(path("records/modify"), json: createBody((0..<10).map { "b\($0)" }, type: "Item")).status == 200)
        try await Task.sleep(for: .seconds(1))
        _ = server.stop(with: SIGKILL)
        let status = try await StratusBinary.run(["push", "status", "--data", folder.data.path])
        #expect(try JSONValue.parse(status.stdout)["pending"] == 50, "\(status.stdout) \(status.stderr)")
        fake.state.withLock { $0.holding = false }

        let restarted = try await RunningServer(arguments: serve, environment: environment, log: folder.log)
        #expect(try await eventually(.seconds(90)) { fake.accepted.count >= 100 })
        try await Task.sleep(for: .seconds(1))
        #expect(restarted.terminate() == 0)

        let deliveries = fake.accepted.map { "\($0.deviceToken) \($0.payload["ck"]?["qry"]?["rid"]?.stringValue ?? "?")" }
        #expect(deliveries.count == 100)
        #expect(Set(deliveries).count == 100, "a push arrived twice")
        #expect(Set(fake.accepted.map(\.deviceToken)) == Set(devices))
    }
}

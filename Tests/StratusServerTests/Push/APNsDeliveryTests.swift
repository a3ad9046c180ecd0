import Foundation
import StratusEngine
import StratusModel
import StratusPush
import StratusTestSupport
import Testing

/// Push delivery to a fake APNs over HTTP/2 and TLS, on the test backend.
@Suite struct APNsDeliveryTests {
    @Test("a verified provider token, CloudKit's payload, the headers its content calls for; the courier still gets the frames")
    func deliversCloudKitPayloads() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let fake = try await fixture.startAPNs()
        defer { fake.stop() }
        let device = deviceToken(1)
        try await fixture.registerDevice(device)
        try await fixture.create(["seed"])
        try await fixture.subscribe(querySubscription("alerts", info: ["alertBody": "New item", "desiredKeys": ["title"]]))
        try await fixture.subscribe([
            "subscriptionID": "sync", "subscriptionType": "zone", "zoneID": ["zoneName": "_defaultZone"],
            "notificationInfo": ["shouldSendContentAvailable": true],
        ])
        try await fixture.create(["r1"])
        let delivery = try fixture.deliver()
        #expect(try await eventually { fake.accepted.count >= 2 })
        #expect(try await eventually { try await fixture.status().pending == 0 })
        await delivery.stop()

        let accepted = fake.accepted
        #expect(accepted.count == 2)
        #expect(fake.state.withLock { ($0.http1Requests, $0.refusals) } == (0, []))
        let alert = try #require(accepted.first { $0.payload["ck"]?["qry"] != nil })
        #expect(alert.deviceToken == device)
        #expect(alert.headers["apns-topic"] == fixture.topic)
        #expect(alert.headers["apns-push-type"] == "alert")
        #expect(alert.headers["apns-priority"] == "10")
        #expect(alert.headers["apns-collapse-id"] == nil)
        #expect(alert.payload["aps"]?["alert"] == "New item")
        #expect(alert.payload["ck"]?["qry"]?["rid"] == "r1")
        #expect(alert.payload["ck"]?["qry"]?["sid"] == "alerts")
        #expect(alert.payload["ck"]?["qry"]?["af"]?["title"] == "hello")
        #expect(alert.payload["ck"]?["cid"] == .string(fixture.container))
        let silent = try #require(accepted.first { $0.payload["ck"]?["fet"] != nil })
        #expect(silent.headers["apns-push-type"] == "background")
        #expect(silent.headers["apns-priority"] == "5")
        #expect(silent.headers["apns-collapse-id"] == "sync")
        #expect(silent.payload["aps"]?["content-available"] == 1)
        let expiration = try #require(silent.headers["apns-expiration"].flatMap(Int64.init))
        #expect(expiration > Int64(Date().timeIntervalSince1970))

        // The device's courier queue is kept beside push.
        #expect(try await fixture.engine.pollWebCourier(courierKey: device, timeout: .zero) != nil)
        #expect(delivery.service.statistics.snapshot.bySubscription["alerts"]?.delivered == 1)
    }

    @Test("APNs's answers: bad and unregistered tokens removed, throttling and server errors retried, an expired provider token remade")
    func reactsToEachAnswer() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let fake = try await fixture.startAPNs()
        defer { fake.stop() }
        let (bad, unregistered, throttled, failing, expiring) = (deviceToken(1), deviceToken(2), deviceToken(3), deviceToken(4), deviceToken(5))
        fake.state.withLock { state in
            state.script = [
                bad: [(400, "BadDeviceToken")], unregistered: [(410, "Unregistered")], throttled: [(429, "TooManyRequests")],
                failing: [(500, "InternalServerError"), (503, "ServiceUnavailable")], expiring: [(403, "ExpiredProviderToken")],
            ]
        }
        try await fixture.subscribeAll(devices: [bad, unregistered, throttled, failing, expiring], info: ["alertBody": "hi"])
        try await fixture.create(["r1"])
        let delivery = try fixture.deliver()
        #expect(try await eventually { Set(fake.accepted.map(\.deviceToken)) == [throttled, failing, expiring] })
        #expect(try await eventually { try await fixture.status().pending == 0 })
        await delivery.stop()

        #expect(fake.accepted.count == 3, "each accepted push once")
        #expect(try await fixture.pushToken(bad) == nil)
        #expect(try await fixture.pushToken(unregistered) == nil)
        #expect(try await fixture.pushToken(throttled) != nil)
        let reasons = try await fixture.status().drops.map(\.reason)
        #expect(reasons.contains { $0.contains("BadDeviceToken") })
        #expect(reasons.contains { $0.contains("Unregistered") })
        // The push APNs called expired went again at once, with a newly signed provider token.
        let tokens = fake.state.withLock { $0.providerTokens }
        #expect(Set(tokens).count >= 2)
        let counts = delivery.service.statistics.snapshot
        #expect(counts.total.delivered == 3)
        #expect(counts.total.failed >= 3)
        #expect(counts.total.dropped == 2)
    }

    @Test("a refused key is reported and its pushes kept, then sent once the key is fixed")
    func brokenKeyIsolated() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let fake = try await fixture.startAPNs()
        defer { fake.stop() }
        try await fixture.subscribeAll(devices: [deviceToken(1)])
        // The key ID does not match the key APNs knows: InvalidProviderToken.
        let wrong = APNsSettings(
            keyPEM: fixture.providerKey.pemRepresentation, keyID: "OTHER12345", teamID: fixture.teamID,
            topic: fixture.topic, endpoint: fake.endpoint)
        try await fixture.engine.savePushCredential(
            PushCredentialRow(
                container: fixture.container, environment: .development,
                provider: APNsSettings.provider, settings: wrong.json))
        try await fixture.create(["r1"])
        let delivery = try fixture.deliver()
        #expect(try await eventually { fake.state.withLock { $0.refusals.contains("InvalidProviderToken") } })
        #expect(fake.accepted.isEmpty)
        #expect(try await fixture.status().pending == 1, "kept for when the key is fixed")
        // Fixed: the waiting push goes out on its next attempt.
        _ = try await fixture.startAPNsSettings(endpoint: fake.endpoint)
        #expect(try await eventually { fake.accepted.count == 1 })
        await delivery.stop()
    }

    @Test("1,000 pushes to 100 device tokens, one of which never answers: every other push delivered once")
    func slowTokenHoldsUpNoOther() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let fake = try await fixture.startAPNs()
        defer { fake.stop() }
        let devices = (0..<100).map(deviceToken)
        let hanging = devices[37]
        fake.state.withLock { $0.hanging = [hanging] }
        try await fixture.subscribeAll(devices: devices, info: ["alertBody": "hi"])
        // Ten records in one batch: ten notifications for each of the 100 tokens.
        try await fixture.create((0..<10).map { "r\($0)" })
        #expect(try await fixture.status().pending == 1_000)
        // Long enough that a busy test machine never times out a push the fake accepted (that push
        // would be sent again), short enough that the silent token is given up on quickly.
        let delivery = try fixture.deliver { $0.requestTimeout = .seconds(10) }
        #expect(try await eventually(.seconds(120)) { fake.accepted.count >= 990 })
        #expect(try await eventually { try await fixture.status().pending == 10 }, "the silent token's pushes wait for their retries")
        await delivery.stop()

        let accepted = fake.accepted
        #expect(accepted.count == 990)
        #expect(!accepted.contains { $0.deviceToken == hanging })
        let byToken = Dictionary(grouping: accepted, by: \.deviceToken)
        #expect(byToken.count == 99)
        for (device, pushes) in byToken {
            let records = Set(pushes.compactMap { $0.payload["ck"]?["qry"]?["rid"]?.stringValue })
            #expect(pushes.count == 10 && records.count == 10, "token \(device.prefix(8)): \(pushes.count) pushes, \(records.count) records")
        }
        #expect(delivery.service.statistics.snapshot.total.failed >= 1)
    }
}

extension PushFixture {
    /// Stores the correct APNs settings (pointing at `endpoint`).
    func startAPNsSettings(endpoint: String) async throws -> APNsSettings {
        let settings = APNsSettings(keyPEM: providerKey.pemRepresentation, keyID: keyID, teamID: teamID, topic: topic, endpoint: endpoint)
        try await engine.savePushCredential(
            PushCredentialRow(
                container: container, environment: .development,
                provider: APNsSettings.provider, settings: settings.json))
        return settings
    }
}

/// Instances on one PostgreSQL database share the queue through leases (SQLite is served by one
/// process).
@Suite struct PushInstancesTests {
    @Test("two instances drain one queue: every push delivered once", .postgresOnly)
    func instancesShareTheQueue() async throws {
        let fixture = try await PushFixture.make(instances: 2)
        defer { Task { await fixture.close() } }
        let fake = try await fixture.startAPNs()
        defer { fake.stop() }
        let devices = (0..<20).map(deviceToken)
        try await fixture.subscribeAll(devices: devices, info: ["alertBody": "hi"])
        let first = try fixture.deliver()
        let second = try fixture.deliver(on: try #require(fixture.otherInstance))
        // Both run before anything is queued (a single SQLite server releases old leases as it starts).
        try await Task.sleep(for: .milliseconds(300))
        try await fixture.create((0..<10).map { "r\($0)" })
        #expect(try await eventually(.seconds(60)) { fake.accepted.count >= 200 })
        // Each instance removes what it delivered before it counts it.
        #expect(try await eventually { try await fixture.status().pending == 0 })
        await first.stop()
        await second.stop()

        let deliveries = fake.accepted.map { "\($0.deviceToken) \($0.payload["ck"]?["qry"]?["rid"]?.stringValue ?? "?")" }
        let split = (first.service.statistics.snapshot.total.delivered, second.service.statistics.snapshot.total.delivered)
        #expect(deliveries.count == 200, "delivered by each instance: \(split)")
        #expect(Set(deliveries).count == 200, "a push was sent twice")
        #expect(split.0 + split.1 == 200)
    }
}

/// A push that cannot be delivered in time is dropped with the reason.
@Suite struct PushExpiryTests {
    @Test("without APNs settings a push waits, then expires with a recorded reason that names the command to run")
    func expiresWithReason() async throws {
        var limits = EngineLimits()
        limits.notificationRetentionSeconds = 2
        let fixture = try await PushFixture.make(limits: limits)
        defer { Task { await fixture.close() } }
        try await fixture.subscribeAll(devices: [deviceToken(1)])
        try await fixture.create(["r1"])
        #expect(try await fixture.status().pending == 1)
        let delivery = try fixture.deliver()
        #expect(try await eventually { try await fixture.status().pending == 0 })
        // The drop is counted just after its row commits, so the count can trail the queue.
        #expect(try await eventually { delivery.service.statistics.snapshot.bySubscription["all"]?.dropped == 1 })
        await delivery.stop()

        let drop = try #require(try await fixture.status().drops.first)
        #expect(drop.subscriptionID == "all")
        #expect(drop.reason.contains("expired"))
        #expect(drop.reason.contains("stratus push apns --container \(fixture.container)"))
    }
}

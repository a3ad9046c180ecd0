import Foundation
import StratusEngine
import StratusModel
import StratusPush
import StratusTestSupport
import Testing

/// Web Push to a receiver that decrypts like a browser and checks VAPID like a push service.
@Suite struct WebPushDeliveryTests {
    @Test("a browser subscription receives the notification encrypted for it, with the container's VAPID key; 410 removes it")
    func deliversEncrypted() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let receiver = try await WebPushReceiver.start()
        defer { receiver.stop() }
        let vapid = try VAPIDSettings.generate(subject: "mailto:ops@example.com")
        try await fixture.engine.savePushCredential(
            PushCredentialRow(
                container: fixture.container, environment: .development,
                provider: VAPIDSettings.provider, settings: vapid.json))
        let scope = try await fixture.scope()
        let endpoint = receiver.origin + "/push/browser-1"
        let gone = receiver.origin + "/gone/browser-2"
        for address in [endpoint, gone] {
            _ = try await fixture.engine.registerPushToken(
                scope,
                body: [
                    "webPushSubscription": ["endpoint": .string(address), "keys": ["p256dh": .string(receiver.p256dh), "auth": .string(receiver.authText)]]
                ])
        }
        try await fixture.create(["seed"])
        try await fixture.subscribe(querySubscription("web", info: ["alertBody": "Changed"]))
        try await fixture.create(["r1"])
        let delivery = try fixture.deliver()
        #expect(try await eventually { receiver.received.withLock { $0.count } == 1 })
        #expect(try await eventually { try await fixture.status().pending == 0 })
        await delivery.stop()

        #expect(receiver.failures.withLock { $0 } == [])
        let message = try #require(receiver.received.withLock { $0.first })
        #expect(try message.vapidKey == vapid.publicKey())
        #expect(message.audience == receiver.origin)
        #expect(message.plaintext["ck"]?["qry"]?["rid"] == "r1")
        #expect(message.plaintext["aps"]?["alert"] == "Changed")
        #expect(message.headers["urgency"] == "high")
        let goneDigest = secretDigest("webpush " + gone)
        #expect(try await fixture.storage.read { try await $0.pushToken(digest: goneDigest) } == nil)
        #expect(try await fixture.status().drops.contains { $0.reason.contains("410") })
    }

    @Test("a subscription with keys that are not a browser's is refused, naming the key")
    func refusesBadKeys() async throws {
        let fixture = try await PushFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        do {
            _ = try await fixture.engine.registerPushToken(
                scope,
                body: [
                    "webPushSubscription": ["endpoint": "https://push.example.com/x", "keys": ["p256dh": "AAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"]]
                ])
            Issue.record("accepted a 3-byte p256dh")
        } catch let error as CloudKitError {
            #expect(error.code == .badRequest)
            #expect(error.reason.contains("p256dh"))
        }
    }
}

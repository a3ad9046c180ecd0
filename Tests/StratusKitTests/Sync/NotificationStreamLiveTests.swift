import Foundation
import StratusKit
import StratusSync
import Testing

/// Waits for the first element of `sequence` that `match` accepts, for at most `seconds`, doing
/// `poke` every 300 ms meanwhile (a notification only reaches a token registered before the
/// change, and the sequence registers its token in the background).
func firstNotification(
    _ container: CKContainer, delivery: CKNotificationDelivery = .longPoll, within seconds: Double, match: @escaping @Sendable (CKNotification) -> Bool,
    poke: @escaping @Sendable () async throws -> Void
) async throws -> CKNotification? {
    try await withThrowingTaskGroup(of: CKNotification?.self) { group in
        group.addTask {
            for try await notification in container.notifications(delivery: delivery) where match(notification) { return notification }
            return nil
        }
        group.addTask {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                try await poke()
                try await Task.sleep(nanoseconds: 300_000_000)
            }
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite("Notification stream and the sync engine's reaction to it")
struct NotificationStreamLiveTests {
    @Test(arguments: [CKNotificationDelivery.longPoll, .serverSentEvents])
    func queryNotificationsArriveThroughTheWebCourier(delivery: CKNotificationDelivery) async throws {
        let container = try await LiveServer.shared().makeContainer()
        let database = container.privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "inbox"))
        let subscription = CKQuerySubscription(
            recordType: "Message", predicate: NSPredicate(value: true), subscriptionID: "messages",
            options: [.firesOnRecordCreation])
        subscription.zoneID = zone.zoneID
        _ = try await database.save(subscription)

        // Generous: in a full parallel run the shared server once took 18 s over the setup above
        // and the notification missed a 10 s window; the wait ends as soon as it arrives.
        let received = try await firstNotification(container, delivery: delivery, within: 40, match: { $0.notificationType == .query }) {
            _ = try await database.save(CKRecord(recordType: "Message", recordID: CKRecord.ID(zoneID: zone.zoneID)))
        }
        let query = try #require(received as? CKQueryNotification)
        #expect(query.subscriptionID == "messages")
        #expect(query.queryNotificationReason == .recordCreated)
        #expect(query.recordID?.zoneID.zoneName == "inbox")
        #expect(query.databaseScope == .private)
        #expect(query.containerIdentifier == container.containerIdentifier)
    }

    @Test func payloadDictionariesBecomeTypedNotifications() {
        let payload: [AnyHashable: Any] = [
            "aps": ["alert": "Zone changed"],
            "ck": ["cid": "iCloud.example", "nid": "n-1", "fet": ["sid": "zone-sub", "zid": "notes", "dbs": 2]],
        ]
        let notification = CKNotification(fromRemoteNotificationDictionary: payload)
        let zone = notification as? CKRecordZoneNotification
        #expect(zone?.recordZoneID?.zoneName == "notes")
        #expect(zone?.subscriptionID == "zone-sub")
        #expect(zone?.alertBody == "Zone changed")
        #expect(zone?.notificationID?.rawValue == "n-1")
        #expect(CKNotification(fromRemoteNotificationDictionary: ["aps": ["alert": "not CloudKit"]]) == nil)
        #expect(CKQueryNotification(fromRemoteNotificationDictionary: payload) == nil, "a zone payload is not a query notification")
    }

    @Test func aStartedEngineFetchesWhenTheServerNotifiesIt() async throws {
        let fixture = try await SyncFixture.make()
        let engine = try fixture.engine("listener")
        try await engine.save(fixture.note("seed", title: "seed", body: "", tags: []))
        let log = EventLog(engine)
        await engine.start()
        defer { Task { await engine.stop() } }

        // Another device writes straight to the server; the started engine is never asked to sync.
        let other = try #require(fixture.server.anotherDevice(of: fixture.container)).privateCloudDatabase
        // Generous: with 15 s it failed now and then in loaded full-suite runs; the loop ends as soon
        // as the record arrives, so a passing run is no slower.
        let deadline = Date().addingTimeInterval(60)
        var written = 0
        var arrived = false
        while Date() < deadline, !arrived {
            if try await engine.zoneIDs().contains(fixture.zoneID), try await engine.pendingRecordIDs().isEmpty {
                written += 1
                _ = try await other.save(fixture.note("remote\(written)", title: "remote", body: "", tags: []))
            }
            try await Task.sleep(nanoseconds: 300_000_000)
            arrived = try await engine.records(ofType: "Note") { $0["title"] as? String == "remote" }.isEmpty == false
        }
        #expect(arrived, "a record written on another device reached the started engine")
        let notified = await log.events().contains { if case .notificationReceived = $0 { true } else { false } }
        #expect(notified, "it arrived because a notification came")
    }
}

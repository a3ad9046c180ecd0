import Foundation
@testable import StratusKit
import StratusModel
import Testing

/// Subscriptions become CKWS subscription dictionaries (docs/protocol.md §7.1) and come back as the
/// right subclass.
@Suite("Subscription dictionaries")
struct SubscriptionWireTests {
    @Test func querySubscriptionCarriesQueryFiringAndNotificationInfo() throws {
        let subscription = CKQuerySubscription(
            recordType: "Whistles", predicate: NSPredicate(format: "genre == %@", "Jazz"),
            subscriptionID: "jazz", options: [.firesOnRecordCreation, .firesOnce])
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "New jazz"
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        let wire = try subscription.wire()
        #expect(wire["subscriptionID"] == "jazz")
        #expect(wire["subscriptionType"] == "query")
        #expect(wire["firesOn"] == ["create"])
        #expect(wire["firesOnce"] == true)
        #expect(wire["zoneWide"] == true)
        #expect(wire["query"]?["recordType"] == "Whistles")
        #expect(wire["query"]?["filterBy"]?.arrayValue?.first?["comparator"] == "EQUALS")
        #expect(wire["notificationInfo"]?["alertBody"] == "New jazz")
        #expect(wire["notificationInfo"]?["shouldSendContentAvailable"] == true)

        let back = try #require(CKSubscription.from(wire: wire) as? CKQuerySubscription)
        #expect(back.subscriptionID == "jazz")
        #expect(back.recordType == "Whistles")
        #expect(back.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnce])
        #expect(back.notificationInfo?.alertBody == "New jazz")
    }

    @Test func anOrSubscriptionComesBackWithTheSameFilterGroups() throws {
        let subscription = CKQuerySubscription(
            recordType: "Whistles", predicate: NSPredicate(format: "genre == %@ OR NOT (rating > 3 AND rating < 5)", "Jazz"),
            subscriptionID: "either", options: [.firesOnRecordCreation])
        let wire = try subscription.wire()
        #expect(wire["query"]?["filterBy"]?[0]?["anyOf"]?.arrayValue?.count == 2)
        let back = try #require(CKSubscription.from(wire: wire) as? CKQuerySubscription)
        #expect(try CKQuerySubscription(recordType: "Whistles", predicate: back.predicate, subscriptionID: "again").wire()["query"] == wire["query"])
    }

    @Test func zoneAndDatabaseSubscriptions() throws {
        let zone = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "moviesZone"), subscriptionID: "z")
        let zoneWire = try zone.wire()
        #expect(zoneWire["subscriptionType"] == "zone")
        #expect(zoneWire["zoneID"]?["zoneName"] == "moviesZone")
        #expect((CKSubscription.from(wire: zoneWire) as? CKRecordZoneSubscription)?.zoneID.zoneName == "moviesZone")
        let database = CKDatabaseSubscription(subscriptionID: "d")
        #expect(try database.wire()["subscriptionType"] == "database")
        #expect(CKSubscription.from(wire: try database.wire())?.subscriptionType == .database)
    }

    @Test func aPredicateCloudKitRefusesFailsTheSubscription() {
        let subscription = CKQuerySubscription(recordType: "T", predicate: NSPredicate(format: "a ENDSWITH 'x'"), subscriptionID: "bad")
        #expect(throws: CKError.self) { try subscription.wire() }
    }
}

import Foundation
import StratusKit
import Testing

@Suite("Subscriptions survive secure archiving")
struct SubscriptionCodingTests {
    func roundTrip<T: CKSubscription>(_ subscription: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: subscription, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }

    @Test func querySubscriptionsKeepTheirQueryZoneOptionsAndNotificationInfo() throws {
        let subscription = CKQuerySubscription(
            recordType: "Message", predicate: NSPredicate(format: "priority > %d", 2),
            subscriptionID: "urgent", options: [.firesOnRecordCreation, .firesOnce])
        subscription.zoneID = CKRecordZone.ID(zoneName: "inbox")
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "Urgent message"
        info.desiredKeys = ["subject"]
        subscription.notificationInfo = info
        let restored = try #require(try roundTrip(subscription))
        #expect(restored.subscriptionID == "urgent")
        #expect(restored.subscriptionType == .query)
        #expect(restored.recordType == "Message")
        #expect(restored.zoneID?.zoneName == "inbox")
        #expect(restored.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnce])
        #expect(restored.notificationInfo?.alertBody == "Urgent message")
        #expect(restored.notificationInfo?.desiredKeys == ["subject"])
    }

    @Test func zoneAndDatabaseSubscriptionsRoundTrip() throws {
        let zone = try #require(try roundTrip(CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "notes"), subscriptionID: "z")))
        #expect(zone.zoneID.zoneName == "notes" && zone.subscriptionID == "z")
        let database = try #require(try roundTrip(CKDatabaseSubscription(subscriptionID: "d")))
        #expect(database.subscriptionType == .database && database.subscriptionID == "d")
    }
}

// Subscription, notification, zone and change-feed code as apps write it against CloudKit
// (completion-handler and async forms). Only the import differs from the Apple-platform original.
import Foundation
import StratusKit

final class SubscriptionSetup {
    let database = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Notes", apiToken: "token")
    ).privateCloudDatabase

    func subscribeToZone() -> CKModifySubscriptionsOperation {
        let subscription = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Notes"), subscriptionID: "notes-changes")
        let notificationInfo = CKSubscription.NotificationInfo()
        notificationInfo.shouldSendContentAvailable = true
        subscription.notificationInfo = notificationInfo

        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
        operation.perSubscriptionSaveBlock = { subscriptionID, result in
            switch result {
            case .success(let saved): print("saved \(saved.subscriptionID)")
            case .failure(let error): print("failed \(subscriptionID): \(error)")
            }
        }
        operation.perSubscriptionDeleteBlock = { subscriptionID, result in _ = (subscriptionID, result) }
        operation.modifySubscriptionsResultBlock = { result in
            if case .failure(let error) = result { print(error) }
        }
        operation.modifySubscriptionsCompletionBlock = { saved, deleted, error in _ = (saved, deleted, error) }
        operation.qualityOfService = .utility
        database.add(operation)
        return operation
    }

    func checkSubscriptions() {
        let operation = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        operation.perSubscriptionResultBlock = { id, result in _ = (id, result) }
        operation.fetchSubscriptionsResultBlock = { result in _ = result }
        operation.fetchSubscriptionCompletionBlock = { subscriptionsByID, error in
            guard let subscriptionsByID else { return }
            for (id, subscription) in subscriptionsByID { print(id, subscription.subscriptionType) }
            _ = error
        }
        database.add(operation)
        let some = CKFetchSubscriptionsOperation(subscriptionIDs: ["notes-changes"])
        database.add(some)
        database.fetch(withSubscriptionIDs: ["notes-changes"]) { result in
            if case .success(let byID) = result { _ = byID["notes-changes"] }
        }
        database.modifySubscriptions(saving: [], deleting: ["old"]) { result in _ = result }
    }

    func asyncSubscriptions() async throws {
        let results = try await database.subscriptions(for: ["notes-changes"])
        if case .success(let subscription)? = results["notes-changes"] { print(subscription) }
    }

    func didReceiveRemoteNotification(_ userInfo: [AnyHashable: Any]) -> CKRecord.ID? {
        guard let notification = CKNotification(fromRemoteNotificationDictionary: userInfo) else { return nil }
        if let queryNotification = notification as? CKQueryNotification, queryNotification.queryNotificationReason == .recordDeleted {
            return queryNotification.recordID
        }
        if notification.notificationType == .recordZone, let zoneNotification = notification as? CKRecordZoneNotification {
            print(zoneNotification.recordZoneID?.zoneName ?? "")
        }
        return nil
    }

    func zonesAndChanges(token: CKServerChangeToken?) {
        let zone = CKRecordZone(zoneName: "Notes")
        database.modifyRecordZones(saving: [zone], deleting: []) { result in
            switch result {
            case .success(let (saveResults, _)): _ = saveResults[zone.zoneID]
            case .failure(let error): print(error)
            }
        }
        database.fetch(withRecordZoneIDs: [zone.zoneID]) { result in _ = try? result.get() }
        database.fetchDatabaseChanges(since: token) { result in
            if case .success(let changes) = result { print(changes.modifications.count, changes.moreComing) }
        }
        database.fetchRecordZoneChanges(inZoneWith: zone.zoneID, since: token, desiredKeys: nil, resultsLimit: nil) { result in
            if case .success(let changes) = result { print(changes.changeToken, changes.deletions.count) }
        }
    }

    func legacyZoneFetch(token: CKServerChangeToken?) {
        let zoneID = CKRecordZone.ID(zoneName: "Notes")
        let options = CKFetchRecordZoneChangesOperation.ZoneOptions()
        options.previousServerChangeToken = token
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID], optionsByRecordZoneID: [zoneID: options])
        operation.recordChangedBlock = { record in print(record.recordID) }
        database.add(operation)

        let old = CKFetchRecordChangesOperation(recordZoneID: zoneID, previousServerChangeToken: token)
        old.recordChangedBlock = { record in print(record) }
        old.recordWithIDWasDeletedBlock = { recordID in print(recordID) }
        old.fetchRecordChangesCompletionBlock = { serverChangeToken, clientChangeTokenData, error in
            _ = (serverChangeToken, clientChangeTokenData, error)
        }
        database.add(old)
    }

    func legacyDiscovery(container: CKContainer) {
        container.requestApplicationPermission(.userDiscoverability) { status, error in
            guard status == .granted, error == nil else { return }
            container.discoverAllIdentities { identities, error in _ = (identities, error) }
        }
        container.status(forApplicationPermission: .userDiscoverability) { status, _ in print(status == .denied) }
        container.discoverUserIdentities(forEmailAddresses: ["a@example.com"]) { result in _ = result }
        let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["a@example.com"]))
        operation.userIdentityDiscoveredBlock = { identity, lookupInfo in print(identity.nameComponents ?? "", lookupInfo) }
        operation.discoverUserIdentitiesResultBlock = { result in _ = result }
        operation.discoverUserIdentitiesCompletionBlock = { error in _ = error }
        container.add(operation)
        let all = CKDiscoverAllUserIdentitiesOperation()
        all.userIdentityDiscoveredBlock = { identity in print(identity.hasiCloudAccount, identity.contactIdentifiers) }
        all.discoverAllUserIdentitiesResultBlock = { result in _ = result }
        all.discoverAllUserIdentitiesCompletionBlock = { error in _ = error }
        container.add(all)
    }

    func legacyDiscoveryAsync(container: CKContainer) async throws {
        let status = try await container.requestApplicationPermission(.userDiscoverability)
        _ = status
        let everyone = try await container.allUserIdentitiesFromContacts()
        let byEmail = try await container.userIdentities(forEmailAddresses: ["a@example.com"])
        let byID = try await container.userIdentities(forUserRecordIDs: [CKRecord.ID(recordName: "_abc")])
        _ = (everyone, byEmail, byID)
    }
}

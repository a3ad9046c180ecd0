import Foundation
import StratusKit
import Testing

/// Subscriptions through operations and the batch database calls, against a live server.
@Suite("Subscription operations against a live server")
struct SubscriptionOperationLiveTests {
    func zoneSubscription(_ id: String, zone: String = "inbox") -> CKRecordZoneSubscription {
        CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: zone), subscriptionID: id)
    }

    @Test func modifyOperationSavesAndDeletesWithPerItemBlocks() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "inbox"))
        let saveOperation = CKModifySubscriptionsOperation(subscriptionsToSave: [
            zoneSubscription("a"), zoneSubscription("b"),
            zoneSubscription("c", zone: "no-such-zone"),
        ])
        let saved = Recorder<String>()
        let failed = Recorder<String>()
        let finished = Recorder<String>()
        saveOperation.perSubscriptionSaveBlock = { id, result in
            switch result {
            case .success(let subscription): saved.add(subscription.subscriptionID)
            case .failure(let error): failed.add("\(id):\((error as? CKError)?.code == .zoneNotFound)")
            }
        }
        saveOperation.modifySubscriptionsResultBlock = { finished.add(ending($0)) }
        await run(saveOperation, on: database)
        #expect(saved.all == ["a", "b"])
        #expect(failed.all == ["c:true"], "a subscription to a missing zone fails alone, with zoneNotFound")
        #expect(finished.all == ["partialFailure[c=zoneNotFound]"])
        #expect(Set(try await database.allSubscriptions().map(\.subscriptionID)) == ["a", "b"])

        let deleteOperation = CKModifySubscriptionsOperation(subscriptionsToSave: nil, subscriptionIDsToDelete: ["a", "missing"])
        let deleted = Recorder<String>()
        deleteOperation.perSubscriptionDeleteBlock = { id, result in deleted.add("\(id):\((try? result.get()) != nil)") }
        let legacy = Recorder<String>()
        deleteOperation.modifySubscriptionsCompletionBlock = { saved, deletedIDs, error in
            let partial = (error as? CKError)?.partialErrorsByItemID?.keys.compactMap { $0 as? String } ?? []
            legacy.add("saved=\(saved?.count ?? -1) deleted=\(deletedIDs ?? []) partial=\(partial)")
        }
        await run(deleteOperation, on: database)
        #expect(deleted.all == ["a:true", "missing:false"])
        #expect(legacy.all == ["saved=0 deleted=[\"a\"] partial=[\"missing\"]"], "the old block reports a partial failure")
        #expect(try await database.allSubscriptions().map(\.subscriptionID) == ["b"])
    }

    @Test func fetchOperationFindsByIDAndFetchesAll() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "inbox"))
        _ = try await database.modifySubscriptions(saving: [zoneSubscription("one"), zoneSubscription("two")], deleting: [])

        let byID = CKFetchSubscriptionsOperation(subscriptionIDs: ["two", "nope"])
        let results = Recorder<String>()
        byID.perSubscriptionResultBlock = { id, result in
            switch result {
            case .success(let subscription): results.add("\(id)=\((subscription as? CKRecordZoneSubscription)?.zoneID.zoneName ?? "?")")
            case .failure(let error): results.add("\(id)!\((error as? CKError)?.code == .unknownItem)")
            }
        }
        let done = Recorder<String>()
        byID.fetchSubscriptionsResultBlock = { done.add(ending($0)) }
        await run(byID, on: database)
        #expect(results.all == ["two=inbox", "nope!true"])
        #expect(done.all == ["partialFailure[nope=unknownItem]"])

        let all = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        let legacy = Recorder<[String]>()
        all.fetchSubscriptionCompletionBlock = { found, error in
            if error == nil { legacy.add((found ?? [:]).keys.sorted()) }
        }
        await run(all, on: database)
        #expect(legacy.all == [["one", "two"]])
    }

    @Test func batchCallsAndTheirCompletionHandlers() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "inbox"))
        let modified = try await withCheckedThrowingContinuation { continuation in
            database.modifySubscriptions(saving: [zoneSubscription("x")], deleting: []) { continuation.resume(with: $0) }
        }
        #expect(try modified.saveResults["x"]?.get().subscriptionID == "x")
        let fetched = try await database.subscriptions(for: ["x", "y"])
        #expect(try fetched["x"]?.get().subscriptionType == .recordZone)
        #expect(throws: CKError.self) { try fetched["y"]?.get() }
        let viaHandler = try await withCheckedThrowingContinuation { continuation in
            database.fetch(withSubscriptionIDs: ["x"]) { continuation.resume(with: $0) }
        }
        #expect(viaHandler.keys.sorted() == ["x"])
    }
}

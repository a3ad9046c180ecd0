import Foundation
import StratusKit
import Testing

/// How a batch operation ended, as its final block reported it: `success`, or
/// `partialFailure[item=code, ...]` naming each failed item (sorted), or another error's code.
func ending(_ error: (any Error)?) -> String {
    guard let error else { return "success" }
    guard let ckError = error as? CKError else { return "\(error)" }
    guard ckError.code == .partialFailure else { return "\(ckError.code)" }
    let items = (ckError.partialErrorsByItemID ?? [:]).map { key, value in
        "\(itemName(key))=\((value as? CKError).map { "\($0.code)" } ?? "\(value)")"
    }
    return "partialFailure[\(items.sorted().joined(separator: ", "))]"
}

func ending(_ result: Result<Void, any Error>) -> String {
    if case .failure(let error) = result { return ending(error) }
    return "success"
}

private func itemName(_ key: AnyHashable) -> String {
    switch key.base {
    case let id as CKRecord.ID: return id.recordName
    case let id as CKRecordZone.ID: return id.zoneName
    case let url as URL: return url.lastPathComponent
    default: return "\(key.base)"
    }
}

/// Apple's batch operations end with `CKError.partialFailure` when any item failed, in the
/// iOS 15 result block and the deprecated completion block alike, with `partialErrorsByItemID`
/// naming each failed item; when every item succeeded they end with success.
@Suite("Partial failures of batch operations against a live server")
struct PartialFailureLiveTests {
    @Test func fetchRecordsEndsWithPartialFailureNamingTheMissingRecord() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let saved = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "here")))
        let operation = CKFetchRecordsOperation(recordIDs: [saved.recordID, CKRecord.ID(recordName: "gone")])
        let final = Recorder<String>()
        operation.fetchRecordsResultBlock = { final.add(ending($0)) }
        await run(operation, on: database)
        #expect(final.all == ["partialFailure[gone=unknownItem]"])

        let complete = CKFetchRecordsOperation(recordIDs: [saved.recordID])
        let fine = Recorder<String>()
        complete.fetchRecordsResultBlock = { fine.add(ending($0)) }
        await run(complete, on: database)
        #expect(fine.all == ["success"], "no failed item, no partial failure")
    }

    @Test func recordZoneOperationsEndWithPartialFailureNamingTheFailedZone() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let present = try await database.save(CKRecordZone(zoneName: "present"))
        let fetch = CKFetchRecordZonesOperation(recordZoneIDs: [present.zoneID, CKRecordZone.ID(zoneName: "absent")])
        let final = Recorder<String>()
        let legacy = Recorder<String>()
        fetch.fetchRecordZonesResultBlock = { final.add(ending($0)) }
        fetch.fetchRecordZonesCompletionBlock = { _, error in legacy.add(ending(error)) }
        await run(fetch, on: database)
        #expect(final.all == ["partialFailure[absent=zoneNotFound]"])
        #expect(legacy.all == ["partialFailure[absent=zoneNotFound]"])

        let modify = CKModifyRecordZonesOperation(
            recordZonesToSave: nil,
            recordZoneIDsToDelete: [present.zoneID, CKRecordZone.ID(zoneName: "absent")])
        let modified = Recorder<String>()
        modify.modifyRecordZonesResultBlock = { modified.add(ending($0)) }
        await run(modify, on: database)
        #expect(modified.all == ["partialFailure[absent=zoneNotFound]"])
    }

    @Test func subscriptionOperationsEndWithPartialFailureNamingTheFailedSubscription() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "inbox"))
        let save = CKModifySubscriptionsOperation(subscriptionsToSave: [
            CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "inbox"), subscriptionID: "fine"),
            CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "no-such-zone"), subscriptionID: "broken"),
        ])
        let saved = Recorder<String>()
        let legacy = Recorder<String>()
        save.modifySubscriptionsResultBlock = { saved.add(ending($0)) }
        save.modifySubscriptionsCompletionBlock = { _, _, error in legacy.add(ending(error)) }
        await run(save, on: database)
        #expect(saved.all == ["partialFailure[broken=zoneNotFound]"], "a failed subscription is not a success")
        #expect(legacy.all == ["partialFailure[broken=zoneNotFound]"])

        let fetch = CKFetchSubscriptionsOperation(subscriptionIDs: ["fine", "never-saved"])
        let fetched = Recorder<String>()
        fetch.fetchSubscriptionsResultBlock = { fetched.add(ending($0)) }
        await run(fetch, on: database)
        #expect(fetched.all == ["partialFailure[never-saved=unknownItem]"])
    }

    @Test func zoneChangesEndWithPartialFailureNamingTheFailedZone() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "notes"))
        _ = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zone.zoneID)))
        let missing = CKRecordZone.ID(zoneName: "vanished")
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone.zoneID, missing], configurationsByRecordZoneID: nil)
        let changed = Recorder<String>()
        let final = Recorder<String>()
        let legacy = Recorder<String>()
        operation.recordWasChangedBlock = { id, _ in changed.add(id.recordName) }
        operation.fetchRecordZoneChangesResultBlock = { final.add(ending($0)) }
        operation.fetchRecordZoneChangesCompletionBlock = { legacy.add(ending($0)) }
        await run(operation, on: database)
        #expect(changed.all == ["n1"], "the zone that exists is fetched")
        #expect(final.all == ["partialFailure[vanished=zoneNotFound]"])
        #expect(legacy.all == ["partialFailure[vanished=zoneNotFound]"])
    }

    @Test func shareMetadataEndsWithPartialFailureNamingTheUnknownShare() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let unknown = server.baseURL.appendingPathComponent("share").appendingPathComponent("no-such-share")
        let operation = CKFetchShareMetadataOperation(shareURLs: [unknown])
        let perItem = Recorder<Bool>()
        let final = Recorder<String>()
        operation.perShareMetadataResultBlock = { _, result in perItem.add((try? result.get()) == nil) }
        operation.fetchShareMetadataResultBlock = { final.add(ending($0)) }
        await run(operation, in: container)
        #expect(perItem.all == [true], "the unknown share fails as an item")
        #expect(final.all.count == 1)
        #expect(final.all.first?.hasPrefix("partialFailure[no-such-share=") == true, "\(final.all)")
    }
}

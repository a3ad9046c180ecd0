import Combine
import CoreLocation
import Foundation
import StratusKit
import Testing

/// The Apple-sample-shaped files compile; these run the parts that need no server.
@Suite("Apple-sample-shaped code")
struct AppleSampleTests {
    @Test func syncManagerTurnsAnNSErrorBackIntoItsCKError() async {
        let manager = PlacesSyncManager()
        let error: any Error = CKError(.zoneNotFound, userInfo: [NSLocalizedDescriptionKey: "Zone Places does not exist"])
        await manager.record(error as NSError)
        let recorded = await manager.lastError
        #expect(recorded?.code == .zoneNotFound)
        #expect(recorded?.localizedDescription == "Zone Places does not exist")

        await manager.record(NSError(domain: NSCocoaErrorDomain, code: 4))
        #expect(await manager.lastError?.code == .internalError, "an NSError of another domain is not a CloudKit code")
    }

    @Test func syncManagerQueuesAPlaceWithItsLocation() async {
        let manager = PlacesSyncManager()
        let bern = Place(identifier: "bern", name: "Bern", latitude: 46.948, longitude: 7.447)
        let zurich = Place(identifier: "zurich", name: "Zürich", latitude: 47.377, longitude: 8.540)
        await manager.add(bern)
        #expect(await manager.syncEngine.state.pendingRecordZoneChanges.map(\.recordID.recordName) == ["bern"])
        #expect((90_000...100_000).contains(bern.distance(to: zurich)), "Bern to Zürich is about 95 km")
        #expect(CLLocationCoordinate2DIsValid(bern.location.coordinate))
    }

    @Test func syncEngineValuesDescribeThemselvesForLogs() {
        let zone = CKRecordZone.ID(zoneName: "Places")
        var fetch = CKSyncEngine.FetchChangesOptions(scope: .zoneIDs([zone]))
        fetch.prioritizedZoneIDs = [zone]
        #expect(fetch.description == "FetchChangesOptions(scope: zoneIDs(Places), prioritized: Places)")
        let send = CKSyncEngine.SendChangesOptions(scope: .recordIDs([CKRecord.ID(recordName: "bern", zoneID: zone)]))
        #expect(send.description == "SendChangesOptions(scope: recordIDs(bern))")
        let batch = CKSyncEngine.RecordZoneChangeBatch(recordsToSave: [CKRecord(recordType: "Place")], recordIDsToDelete: [])
        #expect(batch.description == "RecordZoneChangeBatch(recordsToSave: 1, recordIDsToDelete: 0, atomicByZone: false)")
        #expect("\(CKSyncEngine.SyncReason.manual)" == "manual")
    }

    @MainActor
    @Test func viewModelPublishesItsChanges() async throws {
        let model = PlacesViewModel(
            container: CKContainer(
                configuration: StratusConfiguration(
                    serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Places", apiToken: "token")))
        var willChange = 0
        var searches: [String] = []
        let changes = model.objectWillChange.sink { _ in willChange += 1 }
        let typed = model.trimmedSearches.sink { searches.append($0) }
        model.searchText = "Bern "
        model.searchText = " Bern"
        model.searchText = "Zürich"
        #expect(willChange == 3, "@Published tells ObservableObject before each change")
        #expect(searches == ["", "Bern", "Zürich"], "trimmed, repeats removed")

        NotificationCenter.default.post(name: .CKAccountChanged, object: nil)
        let deadline = ContinuousClock.now + .seconds(5)
        while model.accountChanges == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(model.accountChanges == 1, "the notification arrives on the main queue")
        changes.cancel()
        typed.cancel()
    }
}

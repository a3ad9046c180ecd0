// A sync manager in the shape of Apple's CloudKit samples (the CKSyncEngine sample's
// SyncedDatabase, the private-sync sample's logging): it imports CloudKit, os.log and
// CoreLocation, logs with `Logger` and `os_log`, and stores places with CLLocation. Only
// `import CloudKit` is changed, to `import StratusKit`; `os.log` and `CoreLocation` are Apple's on
// Apple's platforms and StratusLinuxFrameworks' on Linux. It must compile; the tests in
// AppleSampleTests.swift run what needs no server.
import CoreLocation
import Foundation
import StratusKit
import os.log

extension Logger {
    static let loggingSubsystem = "com.example.apple-samplecode.Places"
    static let database = Logger(subsystem: loggingSubsystem, category: "Database")
    static let sync = Logger(subsystem: loggingSubsystem, category: "Sync")
}

struct Place: Codable, Equatable {
    var identifier: String
    var name: String
    var latitude: CLLocationDegrees
    var longitude: CLLocationDegrees

    var location: CLLocation { CLLocation(latitude: latitude, longitude: longitude) }

    func distance(to other: Place) -> CLLocationDistance { location.distance(from: other.location) }
}

final actor PlacesSyncManager: CKSyncEngineDelegate {
    static let zoneName = "Places"
    private(set) var places: [String: Place] = [:]
    private(set) var lastError: CKError?
    private var stateSerialization: CKSyncEngine.State.Serialization?
    private var _syncEngine: CKSyncEngine?

    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Places", apiToken: "token"))

    var syncEngine: CKSyncEngine {
        if _syncEngine == nil {
            var configuration = CKSyncEngine.Configuration(
                database: container.privateCloudDatabase,
                stateSerialization: stateSerialization, delegate: self)
            configuration.automaticallySync = false
            _syncEngine = CKSyncEngine(configuration)
            Logger.database.log("Initialized sync engine: \(String(describing: self._syncEngine))")
        }
        return _syncEngine!
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        Logger.database.debug("Handling event \(event, privacy: .public)")
        switch event {
        case .stateUpdate(let event):
            stateSerialization = event.stateSerialization
        case .fetchedRecordZoneChanges(let event):
            for modification in event.modifications {
                let record = modification.record
                guard let location = record["location"] as? CLLocation else {
                    Logger.database.error("Record \(record.recordID.recordName, privacy: .private) has no location")
                    continue
                }
                places[record.recordID.recordName] = Place(
                    identifier: record.recordID.recordName,
                    name: record["name"] as? String ?? "",
                    latitude: location.coordinate.latitude,
                    longitude: location.coordinate.longitude)
            }
            for deletion in event.deletions {
                places[deletion.recordID.recordName] = nil
            }
        case .sentRecordZoneChanges(let event):
            for failedRecordSave in event.failedRecordSaves {
                record(failedRecordSave.error)
                os_log(
                    "Failed to save %{public}@: %@", log: .default, type: .error,
                    failedRecordSave.record.recordID.recordName, failedRecordSave.error.localizedDescription)
            }
        case .accountChange(let event):
            Logger.sync.notice("Account change: \(String(describing: event.changeType))")
        default:
            Logger.sync.info("Ignoring event \(event)")
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext,
        syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch? {
        Logger.sync.info("Returning next record change batch for context: \(context)")
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let places = self.places
        let batch = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            guard let place = places[recordID.recordName] else { return nil }
            let record = CKRecord(recordType: "Place", recordID: recordID)
            record["name"] = place.name
            record["location"] = place.location
            return record
        }
        if let batch { Logger.sync.debug("Batch: \(batch)") }
        return batch
    }

    func nextFetchChangesOptions(
        _ context: CKSyncEngine.FetchChangesContext,
        syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.FetchChangesOptions {
        Logger.sync.info("Fetching with context \(context) and options \(context.options)")
        var options = context.options
        options.prioritizedZoneIDs = [CKRecordZone.ID(zoneName: Self.zoneName)]
        return options
    }

    /// Errors arrive as `Error`; Apple's samples turn them back into CKError through NSError.
    func record(_ error: any Error) {
        let ckError = error as? CKError ?? CKError(_nsError: error as NSError)
        lastError = ckError
        Logger.sync.error("Sync error \(ckError.code.rawValue, format: .decimal, align: .right(columns: 3)): \(ckError)")
    }

    func add(_ place: Place) {
        places[place.identifier] = place
        let zoneID = CKRecordZone.ID(zoneName: Self.zoneName)
        syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: place.identifier, zoneID: zoneID))])
        os_log(.info, log: OSLog(subsystem: Logger.loggingSubsystem, category: "Places"), "Added place %{public}@", place.name)
    }
}

import Foundation
import StratusKit
import Testing

/// `timeoutIntervalForResource` bounds the whole operation, across its pages and retries.
@Suite("Resource timeout against a live server")
struct ResourceTimeoutLiveTests {
    /// Fetches a zone of 12 records in pages of 2 (six requests) over a slow network.
    func pagedFetch(resourceTimeout: TimeInterval?) async throws -> (changed: Int, outcome: CKError.Code?, seconds: TimeInterval) {
        let slow = try await LiveServer.shared().makeContainer(transport: SlowTransport(delay: .milliseconds(500)))
        let database = slow.privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "slowZone"))
        let records = (0..<12).map { CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\($0)", zoneID: zone.zoneID)) }
        _ = try await database.modifyRecords(saving: records, deleting: [])

        let zoneConfiguration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: nil, resultsLimit: 2)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zone.zoneID],
            configurationsByRecordZoneID: [zone.zoneID: zoneConfiguration])
        let configuration = CKOperation.Configuration()
        // Generous: in the PostgreSQL pass of a loaded CI run one page took over 30 s.
        configuration.timeoutIntervalForRequest = 120
        if let resourceTimeout { configuration.timeoutIntervalForResource = resourceTimeout }
        operation.configuration = configuration
        let changed = Recorder<String>()
        let outcome = Recorder<CKError.Code?>()
        operation.recordWasChangedBlock = { id, _ in changed.add(id.recordName) }
        // A zone that fails is reported on its own; the operation as a whole still completes.
        operation.recordZoneFetchResultBlock = { _, result in
            if case .failure(let error) = result { outcome.add((error as? CKError)?.code) } else { outcome.add(nil) }
        }
        let started = Date()
        await run(operation, on: database)
        return (changed.all.count, outcome.all.first ?? nil, Date().timeIntervalSince(started))
    }

    @Test func anOperationStopsWhenItsResourceTimeoutRunsOutAcrossPages() async throws {
        let unlimited = try await pagedFetch(resourceTimeout: nil)
        #expect(unlimited.outcome == nil && unlimited.changed == 12, "with the default resource timeout every page arrives")

        let limited = try await pagedFetch(resourceTimeout: 1.2)
        #expect(limited.outcome == .networkFailure, "the operation ran past its resource timeout")
        // Fewer records than the full run is what shows it stopped at the deadline: an operation that
        // kept paging and only reported the timeout at the end would have delivered all twelve. (A
        // comparison of durations failed on a loaded machine, where a page's time varies by seconds.)
        #expect(limited.changed < 12, "it stopped before the last page (took \(limited.seconds) s; all six took \(unlimited.seconds) s)")
    }
}

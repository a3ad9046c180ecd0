import Foundation
import StratusKit

/// `sync-kill-helper longlived <folder> <count> [records|zones]`: adds a long-lived
/// CKModifyRecordsOperation saving records L0…L{count-1}, or with `zones` a long-lived
/// CKModifyRecordZonesOperation saving zones Z0…Z{count-1} (long-lived operations kept in
/// <folder>), says `persisted <operationID>` once the operation is on disk, and waits (the test
/// points it at a server that never answers and kills it).
func runLongLivedOperation(folder: URL, count: Int, kind: String, configuration: StratusConfiguration) async {
    var configuration = configuration
    configuration.longLivedOperationFolder = folder
    let container = CKContainer(configuration: configuration)
    let operation: CKDatabaseOperation
    if kind == "zones" {
        operation = CKModifyRecordZonesOperation(recordZonesToSave: (0..<count).map { CKRecordZone(zoneName: "Z\($0)") })
    } else {
        let records = (0..<count).map { index -> CKRecord in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "L\(index)"))
            record["index"] = index
            return record
        }
        operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
    }
    let longLived = CKOperation.Configuration()
    longLived.isLongLived = true
    operation.configuration = longLived
    let id = operation.operationID
    operation.longLivedOperationWasPersistedBlock = { say("persisted \(id)") }
    container.privateCloudDatabase.add(operation)
    while true { try? await Task.sleep(nanoseconds: 1_000_000_000) }
}

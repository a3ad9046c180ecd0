// One measurement of the StratusSync benchmark per process (Benchmarks/sync runs it), so each
// process's peak resident memory belongs to that measurement alone.
//
//   sync-bench seed <zone> <count>          writes <count> records into <zone> (batches of 200)
//   sync-bench engine-fetch <zone> <store>  an empty engine fetches the zone
//   sync-bench cksyncengine-fetch <zone>    a CKSyncEngine with no saved state fetches the zone; its
//                                           delegate counts the records and keeps the latest state
//                                           serialization, as an app persists it
//   sync-bench baseline-fetch <zone>        CKFetchRecordZoneChangesOperation over the zone,
//                                           records dropped as they arrive
//   sync-bench engine-send <zone> <store> <edits>   an engine holding the zone edits <edits>
//                                           records locally, then sends them
//   sync-bench baseline-send <zone> <edits> modifyRecords of the same edits, batches of 200
//
// Prints one JSON line: {"op", "count", "seconds", "peakRSSKiB"}. Server from STRATUS_* variables.
import Foundation
import StratusKit
import StratusSync

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// The process's peak resident set size so far, in KiB (Linux: VmHWM in /proc/self/status).
func peakRSSKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func report(_ op: String, _ count: Int, _ started: Date) {
    let seconds = Date().timeIntervalSince(started)
    print(#"{"op": "\#(op)", "count": \#(count), "seconds": \#(String(format: "%.3f", seconds)), "peakRSSKiB": \#(peakRSSKiB())}"#)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let configuration = StratusConfiguration.fromEnvironment() else {
    fail("usage: sync-bench seed|engine-fetch|baseline-fetch|engine-send|baseline-send <zone> …, with STRATUS_* set")
}
let container = CKContainer(configuration: configuration)
let database = container.privateCloudDatabase
let zoneID = CKRecordZone.ID(zoneName: arguments[2])

func item(_ index: Int) -> CKRecord {
    let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\(index)", zoneID: zoneID))
    record["title"] = "Item number \(index)"
    record["body"] = String(repeating: "lorem ipsum ", count: 20)
    record["rank"] = index
    record["tags"] = ["bench", "tag\(index % 10)"]
    return record
}

func engine(_ path: String) throws -> SyncEngine {
    try SyncEngine(.init(container: container, storeURL: URL(fileURLWithPath: path), zoneIDs: [zoneID]))
}

switch arguments[1] {
case "seed":
    guard arguments.count == 4, let count = Int(arguments[3]) else { fail("seed <zone> <count>") }
    _ = try await database.save(CKRecordZone(zoneID: zoneID))
    let started = Date()
    for start in stride(from: 0, to: count, by: 200) {
        _ = try await database.modifyRecords(
            saving: (start..<min(start + 200, count)).map(item), deleting: [],
            savePolicy: .allKeys, atomically: false)
        if start % 10_000 == 0 { FileHandle.standardError.write(Data("  seeded \(start)/\(count)\n".utf8)) }
    }
    report("seed", count, started)

case "engine-fetch":
    guard arguments.count == 4 else { fail("engine-fetch <zone> <store>") }
    let sync = try engine(arguments[3])
    let started = Date()
    try await sync.fetchChanges()
    let count = try await sync.recordCount()
    report("engine-fetch", count, started)

case "baseline-fetch":
    let started = Date()
    var count = 0
    var token: CKServerChangeToken?
    var more = true
    while more {
        let page = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
        count += page.modificationResultsByID.count
        token = page.changeToken
        more = page.moreComing
    }
    report("baseline-fetch", count, started)

case "engine-send":
    guard arguments.count == 5, let edits = Int(arguments[4]) else { fail("engine-send <zone> <store> <edits>") }
    let sync = try engine(arguments[3])
    if try await sync.recordCount() < edits { try await sync.fetchChanges() }
    let started = Date()
    for index in 0..<edits {
        guard let record = try await sync.record(for: CKRecord.ID(recordName: "i\(index)", zoneID: zoneID)) else { fail("record i\(index) missing") }
        record["title"] = "Edited \(index) at \(started.timeIntervalSince1970)"
        try await sync.save(record)
    }
    try await sync.sendChanges()
    guard try await sync.pendingRecordIDs().isEmpty else { fail("changes left unsent") }
    report("engine-send", edits, started)

case "baseline-send":
    guard arguments.count == 4, let edits = Int(arguments[3]) else { fail("baseline-send <zone> <edits>") }
    let started = Date()
    let records = (0..<edits).map { index -> CKRecord in
        let record = item(index)
        record["title"] = "Edited \(index) at \(started.timeIntervalSince1970)"
        return record
    }
    for chunk in stride(from: 0, to: edits, by: 200) {
        _ = try await database.modifyRecords(
            saving: Array(records[chunk..<min(chunk + 200, edits)]), deleting: [],
            savePolicy: .changedKeys, atomically: false)
    }
    report("baseline-send", edits, started)

case "cksyncengine-fetch":
    let counter = CountingDelegate()
    var engineConfiguration = CKSyncEngine.Configuration(database: database, stateSerialization: nil, delegate: counter)
    // Only the measured fetch: an automatic one at start would fetch every zone of the account.
    engineConfiguration.automaticallySync = false
    let sync = CKSyncEngine(engineConfiguration)
    let started = Date()
    try await sync.fetchChanges(CKSyncEngine.FetchChangesOptions(scope: .zoneIDs([zoneID])))
    guard counter.hasState else { fail("the engine delivered no state serialization") }
    report("cksyncengine-fetch", counter.count, started)

default:
    fail("unknown command \(arguments[1])")
}

/// A CKSyncEngine delegate that keeps no records: it counts them (as the baseline does) and keeps
/// the state serialization an app would persist.
final class CountingDelegate: CKSyncEngineDelegate, @unchecked Sendable {
    // Events arrive one at a time, so the counters need no lock.
    private(set) var count = 0
    private(set) var hasState = false

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .fetchedRecordZoneChanges(let changes): count += changes.modifications.count
        case .stateUpdate: hasState = true
        default: break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
}

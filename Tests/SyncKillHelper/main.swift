// A sync engine in a process of its own, for the tests that kill it (SIGKILL) mid-save or
// mid-send and check that a second run loses and duplicates nothing.
//
//   sync-kill-helper save <store> <count> <batch>   saves records k0…k{count-1} locally (skipping
//                                                   those already saved), then sends them
//   sync-kill-helper resume <store> <batch>         sends whatever is still queued
//   sync-kill-helper longlived <folder> <count> [records|zones]
//                                                   adds a long-lived record (or zone) save and waits
//                                                   to be killed (LongLivedOperationHelper.swift)
//   sync-kill-helper cksyncengine <file> <count> <batch>
//                                                   the same with CKSyncEngine and a JSON store
//                                                   (CKSyncEngineKillHelper.swift)
//
// Reads the server from STRATUS_URL / STRATUS_CONTAINER / STRATUS_API_TOKEN /
// STRATUS_WEB_AUTH_TOKEN. Prints `saved kN` once a local save has returned (the change is
// acknowledged), `sent N` after each batch the server took, and `done` at the end.
import Foundation
import StratusKit
import StratusSync

/// Writes a line straight to stdout (unbuffered: the test reads it before killing us).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count >= 4, let configuration = StratusConfiguration.fromEnvironment() else {
    FileHandle.standardError.write(Data("usage: sync-kill-helper save <store> <count> <batch> | resume <store> <batch>, with STRATUS_* set\n".utf8))
    exit(2)
}
let mode = arguments[1]
if mode == "longlived", let count = Int(arguments[3]) {
    await runLongLivedOperation(
        folder: URL(fileURLWithPath: arguments[2]), count: count,
        kind: arguments.count > 4 ? arguments[4] : "records", configuration: configuration)
}
if mode == "cksyncengine", let count = Int(arguments[3]) {
    try await runCKSyncEngine(file: URL(fileURLWithPath: arguments[2]), count: count, batch: Int(arguments[4]) ?? 5, configuration: configuration)
    exit(0)
}
let batch = Int(arguments.last!) ?? 10
let engine = try SyncEngine(
    .init(
        container: CKContainer(configuration: configuration),
        storeURL: URL(fileURLWithPath: arguments[2]), maximumBatchOperations: batch))
let zoneID = CKRecordZone.ID(zoneName: "killed")

if mode == "save", let count = Int(arguments[3]) {
    for index in 0..<count {
        let id = CKRecord.ID(recordName: "k\(index)", zoneID: zoneID)
        if try await engine.record(for: id) != nil { continue }
        let record = CKRecord(recordType: "Item", recordID: id)
        record["index"] = index
        record["tags"] = ["a", "b"]
        try await engine.save(record)
        say("saved k\(index)")
    }
}
let events = engine.events
let printer = Task {
    for await event in events {
        if case .sentRecordZoneChanges(let saved, let deleted) = event { say("sent \(saved.count + deleted.count)") }
    }
}
try await engine.sendChanges()
printer.cancel()
say("done")

// Sync notes: two devices of one user (a phone and a laptop), each with its own StratusSync
// engine and local SQLite file, edit the same notes while offline and converge when they sync.
// Needs a signed-in user: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN, STRATUS_WEB_AUTH_TOKEN.
import Foundation
import StratusKit
import StratusSync

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

guard let configuration = StratusConfiguration.fromEnvironment() else {
    print("set STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN and STRATUS_WEB_AUTH_TOKEN (see the README)")
    exit(2)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-notes-\(UUID().uuidString.prefix(8))")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// A device: its own client (as on another machine) and its own local store.
func device(_ name: String) throws -> SyncEngine {
    try SyncEngine(.init(container: CKContainer(configuration: configuration), storeURL: folder.appendingPathComponent("\(name).sqlite")))
}
let phone = try device("phone")
let laptop = try device("laptop")

// Print what the laptop's engine reports about conflicts it resolves.
let laptopEvents = laptop.events
let reporter = Task {
    for await event in laptopEvents {
        switch event {
        case .conflictResolved, .zoneDeleted, .changeTokenExpired, .authenticationFailed: print("  laptop engine: \(event)")
        default: break
        }
    }
}

let zone = CKRecordZone.ID(zoneName: "sync-notes-\(UUID().uuidString.prefix(6))")
let tripID = CKRecord.ID(recordName: "trip", zoneID: zone)

func show(_ label: String, _ engine: SyncEngine) async throws -> String {
    let note = try await engine.record(for: tripID)
    let text =
        note.map { "title=\($0["title"] as? String ?? "") body=\($0["body"] as? String ?? "") tags=\(($0["tags"] as? [String] ?? []).sorted())" }
        ?? "(deleted)"
    print("  \(label): \(text)")
    return text
}

func edit(_ engine: SyncEngine, _ change: (CKRecord) -> Void) async throws {
    guard let note = try await engine.record(for: tripID) else { return }
    change(note)
    try await engine.save(note)
}

print("1. The phone writes a note and syncs; the laptop syncs and gets it.")
let trip = CKRecord(recordType: "Note", recordID: tripID)
trip["title"] = "Trip"
trip["body"] = "Lisbon, May"
trip["tags"] = ["passport"]
try await phone.save(trip)
try await phone.sync()
try await laptop.sync()
check(try await show("laptop", laptop) == (try await show("phone ", phone)), "the laptop has the phone's note")

print("2. Both go offline and edit the same note: different fields, and each adds a tag.")
try await edit(phone) {
    $0["title"] = "Trip to Lisbon"; $0["tags"] = ["passport", "tickets"]
}
try await edit(laptop) {
    $0["body"] = "Lisbon, 3-10 May"; $0["tags"] = ["passport", "charger"]
}
_ = try await show("phone ", phone)
_ = try await show("laptop", laptop)
print("   pending: phone \(try await phone.pendingRecordIDs().count), laptop \(try await laptop.pendingRecordIDs().count)")

print("3. Back online: the phone syncs, then the laptop (it merges), then the phone again.")
try await phone.sync()
try await laptop.sync()
try await phone.sync()
let phoneText = try await show("phone ", phone)
let laptopText = try await show("laptop", laptop)
check(phoneText == laptopText, "both devices hold the same note")
check(
    phoneText == "title=Trip to Lisbon body=Lisbon, 3-10 May tags=[\"charger\", \"passport\", \"tickets\"]",
    "both fields and both tags were kept")

print("4. The phone deletes the note while the laptop, offline, edits it: the edit wins.")
try await phone.deleteRecord(withID: tripID)
try await edit(laptop) { $0["body"] = "Lisbon, 3-12 May (extended)" }
try await phone.sync()
try await laptop.sync()
try await phone.sync()
let afterDelete = try await show("phone ", phone)
check(afterDelete == (try await show("laptop", laptop)) && afterDelete.contains("extended"), "the edited note survived the delete on both")

print("5. Offline on the phone: a query runs against the local store, no server involved.")
for (index, title) in ["Groceries", "Gym", "Garden"].enumerated() {
    let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "g\(index)", zoneID: zone))
    note["title"] = title
    try await phone.save(note)
}
let gNotes = try await phone.records(ofType: "Note") { ($0["title"] as? String)?.hasPrefix("G") == true }
print("  phone, offline: \(gNotes.count) notes starting with G: \(gNotes.compactMap { $0["title"] as? String }.sorted())")
try await phone.sync()
try await laptop.sync()
check(try await laptop.recordCount() == 4, "the laptop has all four notes")
print("  after syncing, the laptop holds \(try await laptop.recordCount()) notes")

_ = try await CKContainer(configuration: configuration).privateCloudDatabase.deleteRecordZone(withID: zone)
reporter.cancel()
print("sync-notes: OK")

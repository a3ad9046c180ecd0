// Shared list: user A keeps a shopping list in a custom zone of their private database and
// shares it read-write with user B by email. B opens the share URL and accepts; B adds an item
// and A sees it; A makes B read-only and B's next edit is refused; A removes B and the list is
// gone from B's shared database.
//
// Needs two signed-in users of one container: A is STRATUS_WEB_AUTH_TOKEN; B is
// STRATUS_FRIEND_WEB_AUTH_TOKEN, a user created with the email address STRATUS_FRIEND_EMAIL
// (`stratus user create b --email b@example.com`). scripts/run-examples sets all three.
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

func environment(_ name: String) -> String {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        print("set \(name) (see the comment at the top of Examples/shared-list/main.swift)")
        exit(2)
    }
    return value
}

/// The code error handling needs: the CKError code of a failed call, `nil` when it succeeded.
func errorCode(_ body: () async throws -> Void) async -> CKError.Code? {
    do {
        try await body()
        return nil
    } catch let error as CKError {
        return error.code
    } catch {
        return .internalError
    }
}

let friendEmail = environment("STRATUS_FRIEND_EMAIL")
let alice = CKContainer.default()
guard var friendConfiguration = StratusConfiguration.fromEnvironment() else { fatalError("no server configured") }
friendConfiguration.webAuthToken = environment("STRATUS_FRIEND_WEB_AUTH_TOKEN")
let bob = CKContainer(configuration: friendConfiguration)

// A: a list with one item below it, in a zone of its own (shares live in custom zones).
let zone = try await alice.privateCloudDatabase.save(CKRecordZone(zoneName: "SharedLists-\(UUID().uuidString.prefix(8))"))
let list = CKRecord(recordType: "List", recordID: CKRecord.ID(zoneID: zone.zoneID))
list["title"] = "Weekend groceries"
let firstItem = CKRecord(recordType: "Item", recordID: CKRecord.ID(zoneID: zone.zoneID))
firstItem["title"] = "Coffee"
firstItem.setParent(list)

// A: share the list read-write with B, saving the share together with its root.
let share = CKShare(rootRecord: list)
share[CKShare.SystemFieldKey.title] = "Weekend groceries"
let participant = try await alice.shareParticipant(forEmailAddress: friendEmail)
participant.permission = .readWrite
share.addParticipant(participant)
let (saveResults, _) = try await alice.privateCloudDatabase.modifyRecords(saving: [list, firstItem, share], deleting: [])
guard let savedShare = try saveResults[share.recordID]?.get() as? CKShare, let shareURL = savedShare.url else {
    fatalError("the share was saved without a URL")
}
print("A shared the list with \(friendEmail): \(shareURL.absoluteString)")

// B: open the URL, look at what it is, accept.
let metadata = try await bob.shareMetadata(for: shareURL)
check(
    metadata.participantStatus == .pending && metadata.participantPermission == .readWrite,
    "B is invited with read-write permission")
check(metadata.share[CKShare.SystemFieldKey.title] as? String == "Weekend groceries", "B sees the share's title")
try await bob.accept(metadata)
guard let rootID = metadata.hierarchicalRootRecordID else { fatalError("a hierarchy share names its root") }
let sharedList = try await bob.sharedCloudDatabase.record(for: rootID)
print("B accepted and reads \"\(sharedList["title"] as? String ?? "")\" in the shared database")

// B: add an item under the list.
let bread = CKRecord(recordType: "Item", recordID: CKRecord.ID(zoneID: rootID.zoneID))
bread["title"] = "Bread"
bread.setParent(sharedList)
try await bob.sharedCloudDatabase.save(bread)

// A: sees B's item in the private database.
let breadAtA = try await alice.privateCloudDatabase.record(for: CKRecord.ID(recordName: bread.recordID.recordName, zoneID: zone.zoneID))
check(breadAtA["title"] as? String == "Bread", "A sees the item B added")
print("A sees B's item: \(breadAtA["title"] as? String ?? "")")

// A: makes B read-only; B's next edit is refused.
let current = try await alice.privateCloudDatabase.record(for: savedShare.recordID) as! CKShare
let bobInShare = current.participants.first { $0.role == .privateUser }
check(bobInShare?.acceptanceStatus == .accepted, "A sees that B accepted")
bobInShare?.permission = .readOnly
let readOnlyShare = try await alice.privateCloudDatabase.save(current) as! CKShare
bread["title"] = "Sourdough"
check(
    await errorCode { try await bob.sharedCloudDatabase.save(bread) } == .permissionFailure,
    "a read-only participant's edit is refused")
print("A made B read-only; B's edit was refused")

// A: removes B; the list is gone from B's shared database.
if let bobInShare { readOnlyShare.removeParticipant(bobInShare) }
try await alice.privateCloudDatabase.save(readOnlyShare)
check(try await bob.sharedCloudDatabase.allRecordZones().isEmpty, "B's shared database is empty after removal")
check(
    await errorCode { _ = try await bob.sharedCloudDatabase.record(for: rootID) } == .zoneNotFound,
    "B can no longer read the list")
print("A removed B; B lost the list")

try await alice.privateCloudDatabase.deleteRecordZone(withID: zone.zoneID)
print("shared-list: ok")

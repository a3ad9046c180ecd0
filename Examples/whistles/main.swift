// Whistles: the public-database flow of the classic CloudKit tutorial app.
// Run against a server: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN (see the README).
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

/// Runs an operation on a database and waits until it and all its blocks have finished.
func run(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        operation.completionBlock = { done.resume() }
        database.add(operation)
    }
}

/// Collects what operation blocks report.
final class Box<T>: @unchecked Sendable {
    // @unchecked Sendable: written by one operation's serial blocks, read after it finished.
    var value: T
    init(_ value: T) { self.value = value }
}

let database = CKContainer.default().publicCloudDatabase

// 1. Save a whistle.
let whistle = CKRecord(recordType: "Whistles")
whistle["genre"] = "Jazz" as CKRecordValue
whistle["comments"] = "A smooth little tune" as CKRecordValue
let saved = try await database.save(whistle)
print("saved whistle \(saved.recordID.recordName) (change tag \(saved.recordChangeTag ?? "?"))")

// 2. The 50 newest whistles, genre and comments only, through CKQueryOperation.
let newest = CKQuery(recordType: "Whistles", predicate: NSPredicate(value: true))
newest.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
let list = CKQueryOperation(query: newest)
list.desiredKeys = ["genre", "comments"]
list.resultsLimit = 50
let listed = Box<[CKRecord]>([])
let listError = Box<Error?>(nil)
list.recordMatchedBlock = { _, result in if let record = try? result.get() { listed.value.append(record) } }
list.queryResultBlock = { result in if case .failure(let error) = result { listError.value = error } }
await run(list, on: database)
check(listError.value == nil, "listing whistles: \(listError.value.map { "\($0)" } ?? "")")
check(listed.value.first?.recordID == whistle.recordID, "the new whistle is the newest")
print("listed \(listed.value.count) whistle(s); newest: \(listed.value.first?["genre"] as? String ?? "?") — \(listed.value.first?["comments"] as? String ?? "?")")

// 3. Suggestions pointing at the whistle; deleting the whistle deletes them.
var suggestions: [CKRecord] = []
for text in ["Try it faster", "Add a bridge", "Lovely"] {
    let suggestion = CKRecord(recordType: "Suggestions")
    suggestion["text"] = text as CKRecordValue
    suggestion["owningWhistle"] = CKRecord.Reference(recordID: whistle.recordID, action: .deleteSelf)
    suggestions.append(suggestion)
    _ = try await database.save(suggestion)
}
print("added \(suggestions.count) suggestions")

// 4. The whistle's suggestions, oldest first.
func suggestionsOf(_ id: CKRecord.ID) async throws -> [CKRecord] {
    let reference = CKRecord.Reference(recordID: id, action: .none)
    let query = CKQuery(recordType: "Suggestions", predicate: NSPredicate(format: "owningWhistle == %@", reference))
    query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)]
    return try await database.records(matching: query).matchResults.compactMap { try? $0.1.get() }
}
let found = try await suggestionsOf(whistle.recordID)
check(found.map(\.recordID) == suggestions.map(\.recordID), "suggestions come back in creation order")
print("suggestions: " + found.map { "\"\($0["text"] as? String ?? "")\"" }.joined(separator: ", "))

// 5. The whole whistle by ID.
let full = try await database.record(for: whistle.recordID)
print("fetched \(full.recordType) \(full.recordID.recordName): genre=\(full["genre"] as? String ?? "?") keys=\(full.allKeys())")

// 6. Delete the whistle; its suggestions go with it.
try await database.deleteRecord(withID: whistle.recordID)
let remaining = try await suggestionsOf(whistle.recordID)
check(remaining.isEmpty, "suggestions were deleted with their whistle")
print("deleted the whistle; \(remaining.count) suggestions remain")
print("whistles: OK")

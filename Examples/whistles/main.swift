// Whistles: the public-database flow of the classic CloudKit tutorial app. Each whistle carries
// its recording (a generated WAV file) as an asset, downloaded only when someone listens to it.
// Run against a server: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN (see the README).
import Foundation
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

/// A short whistle: a 16-bit mono WAV gliding from `from` to `to` Hz over `seconds`.
func recordWhistle(from: Double, to: Double, seconds: Double = 0.4) throws -> URL {
    let rate = 8000, count = Int(Double(rate) * seconds)
    var samples: [UInt8] = []
    var phase = 0.0
    for n in 0..<count {
        phase += 2 * Double.pi * (from + (to - from) * Double(n) / Double(count)) / Double(rate)
        let value = Int16(sin(phase) * 12_000)
        samples += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
    var header: [UInt8] = []
    func tag(_ text: String) { header += Array(text.utf8) }
    func le32(_ value: Int) { for shift in stride(from: 0, to: 32, by: 8) { header.append(UInt8((value >> shift) & 0xFF)) } }
    func le16(_ value: Int) { header += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    tag("RIFF"); le32(36 + samples.count); tag("WAVE")
    tag("fmt "); le32(16); le16(1); le16(1); le32(rate); le32(rate * 2); le16(2); le16(16)
    tag("data"); le32(samples.count)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("whistle-\(UUID().uuidString).wav")
    try Data(header + samples).write(to: file)
    return file
}

// 1. Save a whistle with its recording.
let recording = try recordWhistle(from: 900, to: 1800)
let whistle = CKRecord(recordType: "Whistles")
whistle["genre"] = "Jazz" as CKRecordValue
whistle["comments"] = "A smooth little tune" as CKRecordValue
whistle["audio"] = CKAsset(fileURL: recording)
let saved = try await database.save(whistle)
print("saved whistle \(saved.recordID.recordName) (change tag \(saved.recordChangeTag ?? "?")) with a \((try Data(contentsOf: recording)).count)-byte recording")

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
check(listed.value.allSatisfy { $0["audio"] == nil }, "listing whistles does not fetch their recordings")
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

// 5. Listen: fetch the whole whistle; its recording is downloaded to a local file.
let full = try await database.record(for: whistle.recordID)
let audio = full["audio"] as? CKAsset
check(audio?.fileURL != nil && audio?.fileURL != recording, "listening downloads the recording to a local file")
let heard = try Data(contentsOf: audio!.fileURL!)
check(heard == (try Data(contentsOf: recording)), "the downloaded recording is the one uploaded")
check(heard.prefix(4) == Data("RIFF".utf8), "the recording is a WAV file")
print("listened to \(full.recordID.recordName): genre=\(full["genre"] as? String ?? "?"), \(heard.count)-byte recording at \(audio!.fileURL!.path)")

// 6. Delete the whistle; its suggestions go with it.
try await database.deleteRecord(withID: whistle.recordID)
let remaining = try await suggestionsOf(whistle.recordID)
check(remaining.isEmpty, "suggestions were deleted with their whistle")
print("deleted the whistle; \(remaining.count) suggestions remain")
try? FileManager.default.removeItem(at: recording)
print("whistles: OK")

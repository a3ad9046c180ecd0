// Movies: a private custom zone, family members holding lists of references to movies, saves in
// one CKModifyRecordsOperation, and each record's system fields kept locally with
// encodeSystemFields(with:) and restored with CKRecord(coder:) so a later edit passes the
// server's change-tag check. Needs a signed-in user: STRATUS_WEB_AUTH_TOKEN.
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

/// Saves records in one operation and returns what the per-record blocks reported.
func saveInOneOperation(
    _ records: [CKRecord], on database: CKDatabase,
    policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged
) async -> [CKRecord.ID: Result<CKRecord, Error>] {
    final class Results: @unchecked Sendable {
        // @unchecked Sendable: filled by one operation's serial blocks, read after it finished.
        var byID: [CKRecord.ID: Result<CKRecord, Error>] = [:]
    }
    let results = Results()
    let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
    operation.savePolicy = policy
    operation.perRecordSaveBlock = { id, result in results.byID[id] = result }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        operation.completionBlock = { done.resume() }
        database.add(operation)
    }
    return results.byID
}

/// The local cache: record name → archived system fields.
var systemFields: [String: Data] = [:]

@MainActor func remember(_ record: CKRecord) {
    let coder = NSKeyedArchiver(requiringSecureCoding: true)
    record.encodeSystemFields(with: coder)
    coder.finishEncoding()
    systemFields[record.recordID.recordName] = coder.encodedData
}

@MainActor func restore(_ recordName: String) -> CKRecord? {
    guard let data = systemFields[recordName], let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
    coder.requiresSecureCoding = true
    defer { coder.finishDecoding() }
    return CKRecord(coder: coder)
}

let database = CKContainer.default().privateCloudDatabase
let zone = try await database.save(CKRecordZone(zoneName: "moviesZone"))
print("zone \(zone.zoneID.zoneName) ready")

let titles = ["Alien", "Up", "Heat"]
let movies = titles.map { title -> CKRecord in
    let movie = CKRecord(recordType: "Movie", recordID: CKRecord.ID(recordName: "movie-\(title.lowercased())", zoneID: zone.zoneID))
    movie["title"] = title
    return movie
}
let ana = CKRecord(recordType: "FamilyMember", recordID: CKRecord.ID(recordName: "member-ana", zoneID: zone.zoneID))
ana["name"] = "Ana"
ana["favoriteMovies"] = [movies[0], movies[2]].map { CKRecord.Reference(record: $0, action: .none) }
let ben = CKRecord(recordType: "FamilyMember", recordID: CKRecord.ID(recordName: "member-ben", zoneID: zone.zoneID))
ben["name"] = "Ben"
ben["favoriteMovies"] = [CKRecord.Reference(record: movies[1], action: .none)]

// Start from a clean zone when the example runs twice.
_ = try await database.modifyRecords(saving: [], deleting: (movies + [ana, ben]).map(\.recordID), atomically: false)

let saved = await saveInOneOperation(movies + [ana, ben], on: database)
for (id, result) in saved.sorted(by: { $0.key.recordName < $1.key.recordName }) {
    let record = try result.get()
    remember(record)
    print("saved \(record.recordType) \(id.recordName) in \(id.zoneID.zoneName), tag \(record.recordChangeTag ?? "?")")
}
check(systemFields.count == 5, "five records saved and remembered")

// Later (say, after a relaunch): rebuild Ana from her cached system fields, edit, save.
let restoredAna = try restore("member-ana").orThrow("no cached system fields for Ana")
check(restoredAna.allKeys().isEmpty, "the cache holds system fields only")
restoredAna["name"] = "Ana María"
let afterEdit = await saveInOneOperation([restoredAna], on: database)
let edited = try afterEdit[restoredAna.recordID].orThrow("no result for Ana").get()
remember(edited)
print("edited \(edited.recordID.recordName) from cached system fields: name=\(edited["name"] as? String ?? "?"), new tag \(edited.recordChangeTag ?? "?")")

// An out-of-date cache is refused: the change-tag check works.
let stale = CKRecord(coder: try NSKeyedUnarchiver(forReadingFrom: try NSKeyedArchiver.archivedData(withRootObject: ana, requiringSecureCoding: true)))
let staleResult = await saveInOneOperation([stale ?? ana], on: database)
if case .failure(let error as CKError)? = staleResult[ana.recordID] {
    check(error.code == .serverRecordChanged, "stale save is serverRecordChanged")
    print("a save from the stale copy was refused: serverRecordChanged (server has \"\(error.serverRecord?["name"] as? String ?? "?")\")")
} else {
    check(false, "a save from a stale copy succeeded")
}

let family = try await database.records(
    matching: CKQuery(recordType: "FamilyMember", predicate: NSPredicate(value: true)),
    inZoneWith: zone.zoneID)
for case let (_, .success(member)) in family.matchResults {
    let favorites = (member["favoriteMovies"] as? [CKRecord.Reference] ?? []).map(\.recordID)
    let names = try await database.records(for: favorites).values.compactMap { try? $0.get()["title"] as? String }
    print("\(member["name"] as? String ?? "?") likes \(names.sorted())")
}
try await database.deleteRecordZone(withID: zone.zoneID)
print("movies: OK")

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw CKError(.unknownItem, userInfo: [NSLocalizedDescriptionKey: message]) }
        return self
    }
}

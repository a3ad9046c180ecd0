// CloudKit code written the way Apple's documentation and classic tutorials write it. The only
// change from the Apple-platform original is `import StratusKit` instead of `import CloudKit`.
// This target exists to prove it compiles on Linux; the test at the bottom runs the parts that
// need no server.
import Foundation
import StratusKit

final class WhistleStore {
    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Whistles", apiToken: "token"))
    var publicDB: CKDatabase { container.publicCloudDatabase }

    func makeWhistle(genre: String, comments: String) -> CKRecord {
        let whistleRecord = CKRecord(recordType: "Whistles")
        whistleRecord["genre"] = genre as CKRecordValue
        whistleRecord["comments"] = comments as CKRecordValue
        whistleRecord.setObject(Date() as CKRecordValue, forKey: "when")
        whistleRecord["rating"] = 5
        whistleRecord["tags"] = ["fun", "short"] as CKRecordValue
        return whistleRecord
    }

    func save(_ record: CKRecord, done: @escaping @Sendable (Error?) -> Void) {
        publicDB.save(record) { record, error in
            if let error = error {
                print("Error: \(error.localizedDescription)")
            }
            done(error)
        }
    }

    func loadWhistles() -> CKQueryOperation {
        let pred = NSPredicate(value: true)
        let sort = NSSortDescriptor(key: "creationDate", ascending: false)
        let query = CKQuery(recordType: "Whistles", predicate: pred)
        query.sortDescriptors = [sort]

        let operation = CKQueryOperation(query: query)
        operation.desiredKeys = ["genre", "comments"]
        operation.resultsLimit = 50
        operation.qualityOfService = .userInitiated
        operation.queuePriority = .high

        operation.recordFetchedBlock = { record in
            let genre = record["genre"] as? String
            let comments: String? = record["comments"]
            _ = (genre, comments)
        }
        operation.queryCompletionBlock = { (cursor, error) in
            if let cursor = cursor {
                let next = CKQueryOperation(cursor: cursor)
                _ = next
            }
        }
        operation.recordMatchedBlock = { recordID, result in
            switch result {
            case .success(let record): _ = record.recordID == recordID
            case .failure(let error): print(error)
            }
        }
        operation.queryResultBlock = { result in
            if case .failure(let error) = result { print(error) }
        }
        return operation
    }

    func suggestions(for whistleID: CKRecordID) -> CKQuery {
        let reference = CKReference(recordID: whistleID, action: .none)
        let pred = NSPredicate(format: "owningWhistle == %@", reference)
        let sort = NSSortDescriptor(key: "creationDate", ascending: true)
        let query = CKQuery(recordType: "Suggestions", predicate: pred)
        query.sortDescriptors = [sort]
        return query
    }

    func addSuggestion(_ text: String, to whistle: CKRecord) -> CKRecord {
        let suggestion = CKRecord(recordType: "Suggestions")
        suggestion["text"] = text as NSString
        suggestion["owningWhistle"] = CKRecord.Reference(record: whistle, action: .deleteSelf)
        return suggestion
    }
}

final class LegacyNotes {
    let privateDB: CKDatabase

    init(container: CKContainer) { privateDB = container.privateCloudDatabase }

    func createDefaultFolder(completion: @escaping @Sendable (CKRecord?) -> Void) {
        let zoneID = CKRecordZoneID(zoneName: CKRecordZoneDefaultName, ownerName: CKCurrentUserDefaultName)
        let folderID = CKRecordID(recordName: "defaultFolder", zoneID: zoneID)
        let folder = CKRecord(recordType: "Folder", recordID: folderID)
        folder["name"] = "Notes" as CKRecordValue
        privateDB.save(folder) { saved, error in
            if let ckError = error as? CKError, ckError.code == .serverRecordChanged {
                completion(ckError.serverRecord)
                return
            }
            completion(saved)
        }
    }

    func handle(_ error: Error) -> Bool {
        guard let ckError = error as? CKError else { return false }
        switch ckError.code {
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited:
            if let retryAfter = ckError.retryAfterSeconds { print("retry in \(retryAfter)") }
            return true
        case .partialFailure:
            if let partial = ckError.partialErrorsByItemID { print(partial.count) }
            return false
        case .unknownItem, .zoneNotFound:
            return false
        default:
            return false
        }
    }

    func handleWithCatch() async {
        do {
            _ = try await privateDB.record(for: CKRecord.ID(recordName: "x"))
        } catch CKError.unknownItem {
            print("missing")
        } catch {
            print(error)
        }
    }

    func allNotes(completion: @escaping @Sendable ([CKRecord]) -> Void) {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "TRUEPREDICATE"))
        privateDB.perform(query, inZoneWith: nil) { records, error in
            completion(records ?? [])
        }
    }

    func allNotes() async throws -> [CKRecord] {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "TRUEPREDICATE"))
        let records: [CKRecord] = try await privateDB.records(matching: query, inZoneWith: nil)
        return records
    }

    func modify(_ records: [CKRecord], delete ids: [CKRecordID]) {
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: ids)
        operation.savePolicy = .changedKeys
        operation.isAtomic = false
        operation.perRecordCompletionBlock = { record, error in _ = (record, error) }
        operation.modifyRecordsCompletionBlock = { saved, deleted, error in _ = (saved, deleted, error) }
        operation.perRecordSaveBlock = { recordID, result in _ = (recordID, result) }
        operation.modifyRecordsResultBlock = { result in _ = result }
        privateDB.add(operation)
    }
}

struct MovieCache {
    func archive(_ record: CKRecord) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    func restore(_ data: Data) -> CKRecord? {
        guard let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        let record = CKRecord(coder: coder)
        coder.finishDecoding()
        return record
    }

    func nearby(_ location: CLLocation) -> CKQuery {
        let radiusInKilometers = 5.0
        let predicate = NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", location, radiusInKilometers)
        let query = CKQuery(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: location)]
        return query
    }

    func compound(after date: Date) -> NSPredicate {
        let recent = NSPredicate(format: "creationDate > %@", date as NSDate)
        let rated = NSPredicate(format: "%K >= %d", "rating", 4)
        let genres = NSPredicate(format: "genre IN %@", ["Jazz", "Rock"])
        return NSCompoundPredicate(andPredicateWithSubpredicates: [recent, rated, genres])
    }

    func values(of record: CKRecord) {
        let count = record["count"] as? Int ?? 0
        let big = record["count"] as? Int64
        let ratio = record.object(forKey: "ratio") as? Double
        let asset = record["poster"] as? CKAsset
        let url = asset?.fileURL
        let owner = record["owner"] as? CKRecord.Reference
        let place = record["place"] as? CLLocation
        let tags = record["tags"] as? [String] ?? []
        let title: String? = record["title"]
        let year: Int? = record["year"]
        record["poster"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/poster.png"))
        record["place"] = CLLocation(latitude: 37.33, longitude: -122.03)
        record.setValue("value", forKey: "kvc")
        _ = (count, big, ratio, url, owner, place, tags, title, year, record.allKeys(), record.changedKeys())
    }

    func zones(_ database: CKDatabase) {
        let zone = CKRecordZone(zoneName: "moviesZone")
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: [zone], recordZoneIDsToDelete: nil)
        operation.modifyRecordZonesCompletionBlock = { saved, deleted, error in _ = (saved, deleted, error) }
        database.add(operation)
        database.fetchAllRecordZones { zones, error in _ = (zones, error) }
        let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "m1", zoneID: zone.zoneID)])
        fetch.fetchRecordsCompletionBlock = { records, error in _ = (records, error) }
        database.add(fetch)
    }

    func modern(_ database: CKDatabase) async throws {
        let (results, cursor) = try await database.records(
            matching: CKQuery(recordType: "Movie", predicate: NSPredicate(value: true)),
            desiredKeys: ["title"], resultsLimit: 10)
        for (id, result) in results { _ = (id, try result.get()) }
        if let cursor { _ = try await database.records(continuingMatchFrom: cursor) }
        let saved = try await database.modifyRecords(saving: [], deleting: [], savePolicy: .allKeys, atomically: false)
        _ = saved.saveResults
    }
}

/// The README's example, verbatim apart from being wrapped in a function.
func readmeExample() async throws {
    let database = CKContainer.default().publicCloudDatabase
    let whistle = CKRecord(recordType: "Whistles")
    whistle["genre"] = "Jazz" as CKRecordValue
    try await database.save(whistle)

    let query = CKQuery(recordType: "Whistles", predicate: NSPredicate(format: "genre == %@", "Jazz"))
    query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
    for (_, result) in try await database.records(matching: query).matchResults {
        print(try result.get()["genre"] as? String ?? "")
    }
}

func encryptedValuesIdioms(_ record: CKRecord) {
    record.encryptedValues["secret"] = "s3cret"
    let secret = record.encryptedValues["secret"] as? String
    let typed: String? = record.encryptedValues["secret"]
    _ = (secret, typed)
}

func subscriptionIdioms(_ database: CKDatabase) {
    let predicate = NSPredicate(format: "genre == %@", "Jazz")
    let subscription = CKQuerySubscription(
        recordType: "Whistles", predicate: predicate, subscriptionID: "jazz",
        options: [.firesOnRecordCreation, .firesOnRecordUpdate])
    let info = CKSubscription.NotificationInfo()
    info.alertBody = "A new jazz whistle was posted"
    info.shouldBadge = true
    subscription.notificationInfo = info
    database.save(subscription) { saved, error in _ = (saved, error) }
    database.fetchAllSubscriptions { subscriptions, error in _ = (subscriptions, error) }
    database.delete(withSubscriptionID: "jazz") { id, error in _ = (id, error) }
}

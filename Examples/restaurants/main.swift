// Restaurants: the public database with records(matching:) async, then the operation API with
// desiredKeys, resultsLimit 50 and cursor paging through 120 records, newest first.
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

let database = CKContainer.default().publicCloudDatabase
let run = String(UUID().uuidString.prefix(8))
let cuisines = ["thai", "greek", "mexican", "sichuan"]

// Seed 120 restaurants for this run, in one call (the SDK splits it into batches).
let restaurants = (0..<120).map { i -> CKRecord in
    let record = CKRecord(recordType: "Restaurant")
    record["name"] = "Restaurant \(i)"
    record["cuisine"] = cuisines[i % cuisines.count]
    record["rating"] = Double(i % 5) + 0.5
    record["location"] = CLLocation(latitude: 48.85 + Double(i) / 1000, longitude: 2.35)
    record["run"] = run
    return record
}
let seeded = try await database.modifyRecords(saving: restaurants, deleting: [])
check(seeded.saveResults.values.allSatisfy { (try? $0.get()) != nil }, "all 120 restaurants saved")
print("seeded \(seeded.saveResults.count) restaurants (run \(run))")

// records(matching:) with async/await.
let thai = CKQuery(recordType: "Restaurant", predicate: NSPredicate(format: "run == %@ AND cuisine == %@", run, "thai"))
let (thaiResults, _) = try await database.records(matching: thai)
check(thaiResults.count == 30, "30 thai restaurants")
print("records(matching:) found \(thaiResults.count) thai restaurants")

// The operation API, paging with cursors, newest first.
let newestFirst = CKQuery(recordType: "Restaurant", predicate: NSPredicate(format: "run == %@", run))
newestFirst.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]

final class Page: @unchecked Sendable {
    // @unchecked Sendable: filled by one operation's serial blocks, read after it finished.
    var names: [String] = []
    var cursor: CKQueryOperation.Cursor?
    var error: Error?
}

func fetchPage(_ operation: CKQueryOperation) async -> Page {
    let page = Page()
    operation.desiredKeys = ["name", "cuisine"]
    operation.resultsLimit = 50
    operation.recordMatchedBlock = { _, result in
        if let record = try? result.get() { page.names.append(record["name"] as? String ?? "?") }
    }
    operation.queryResultBlock = { result in
        switch result {
        case .success(let cursor): page.cursor = cursor
        case .failure(let error): page.error = error
        }
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        operation.completionBlock = { done.resume() }
        database.add(operation)
    }
    return page
}

var all: [String] = []
var page = await fetchPage(CKQueryOperation(query: newestFirst))
var pageSizes: [Int] = []
while true {
    check(page.error == nil, "query page: \(page.error.map { "\($0)" } ?? "")")
    pageSizes.append(page.names.count)
    all += page.names
    guard let cursor = page.cursor else { break }
    page = await fetchPage(CKQueryOperation(cursor: cursor))
}
check(all.count == 120 && Set(all).count == 120, "120 distinct restaurants over all pages")
check(pageSizes == [50, 50, 20], "pages of 50, 50, 20")
print("paged through \(all.count) restaurants in pages of \(pageSizes); newest: \(all.first ?? "?"), oldest: \(all.last ?? "?")")

_ = try await database.modifyRecords(saving: [], deleting: restaurants.map(\.recordID))
print("restaurants: OK")

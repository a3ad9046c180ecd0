// Restaurants: the public database with records(matching:) async, then the operation API with
// desiredKeys, resultsLimit 50 and cursor paging through 120 records, newest first. Each
// restaurant has a photo (a small generated BMP), uploaded with the record and downloaded only by
// fetches that ask for it.
import Foundation
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

/// A 24×24 24-bit BMP in a colour of its own, written to the temporary folder.
func makePhoto(_ index: Int) throws -> URL {
    let side = 24, rowBytes = side * 3
    var bytes: [UInt8] = Array("BM".utf8)
    func le32(_ value: Int) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> shift) & 0xFF)) } }
    func le16(_ value: Int) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    le32(54 + rowBytes * side); le32(0); le32(54)
    le32(40); le32(side); le32(side); le16(1); le16(24); le32(0); le32(rowBytes * side); le32(2835); le32(2835); le32(0); le32(0)
    let (red, green, blue) = (UInt8(index * 37 % 256), UInt8(index * 91 % 256), UInt8(255 - index % 256))
    for y in 0..<side {
        for x in 0..<side { bytes += (x + y) % 8 < 4 ? [blue, green, red] : [255, 255, 255] }
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("restaurant-\(run)-\(index).bmp")
    try Data(bytes).write(to: file)
    return file
}

// Seed 120 restaurants for this run, in one call (the SDK splits it into batches and uploads
// the photos several at a time).
let photos = try (0..<120).map(makePhoto)
let restaurants = (0..<120).map { i -> CKRecord in
    let record = CKRecord(recordType: "Restaurant")
    record["photo"] = CKAsset(fileURL: photos[i])
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
// Those fetches asked for every field, so each photo was downloaded to a local file.
for (_, result) in thaiResults {
    let record = try result.get()
    let photo = record["photo"] as? CKAsset
    check(photo?.fileURL != nil, "a fetched restaurant has its photo file")
    let original = photos[Int((record["name"] as? String ?? "").split(separator: " ").last ?? "") ?? 0]
    check(try Data(contentsOf: photo!.fileURL!) == Data(contentsOf: original), "the downloaded photo is the uploaded one")
}
print("downloaded \(thaiResults.count) photos, each identical to its upload")

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
        guard let record = try? result.get() else { return }
        page.names.append(record["name"] as? String ?? "?")
        // desiredKeys leave the photo out: it is neither sent nor downloaded.
        if record["photo"] != nil { page.error = page.error ?? CKError(.internalError) }
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
for photo in photos { try? FileManager.default.removeItem(at: photo) }
print("restaurants: OK")

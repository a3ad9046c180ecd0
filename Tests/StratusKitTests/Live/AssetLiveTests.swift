import Foundation
import StratusKit
import Synchronization
import Testing

/// CKAsset through StratusKit against a live server with a real blob folder: saving uploads the
/// local files, fetching downloads them into the container's asset cache.
@Suite struct AssetLiveTests {
    /// A file of `count` pseudo-random bytes in a new temporary folder.
    static func makeFile(_ count: Int, seed: UInt8) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratuskit-assets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("file-\(seed).bin")
        var state = UInt32(seed) &+ 1
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        try Data(bytes).write(to: file)
        return file
    }

    @Test func savedAssetsUploadAndFetchedAssetsDownloadByteIdentical() async throws {
        let server = try await LiveServer.shared()
        let database = try await server.makeContainer().publicCloudDatabase
        let cover = try Self.makeFile(70_000, seed: 1)
        let pages = [try Self.makeFile(10, seed: 2), try Self.makeFile(0, seed: 3)]
        let record = CKRecord(recordType: "Book")
        record["cover"] = CKAsset(fileURL: cover)
        record["pages"] = pages.map { CKAsset(fileURL: $0) }
        let saved = try await database.save(record)
        #expect((saved["cover"] as? CKAsset)?.fileURL == cover, "a saved asset keeps its local file")

        let fetched = try await database.record(for: record.recordID)
        let fetchedCover = try #require(fetched["cover"] as? CKAsset)
        let local = try #require(fetchedCover.fileURL)
        #expect(local != cover)
        #expect(try Data(contentsOf: local) == Data(contentsOf: cover))
        let fetchedPages = try #require(fetched["pages"] as? [CKAsset])
        #expect(fetchedPages.count == 2)
        for (asset, original) in zip(fetchedPages, pages) {
            #expect(try Data(contentsOf: try #require(asset.fileURL)) == Data(contentsOf: original))
        }

        // Saving the fetched record again (another field changed) does not upload or fail.
        fetched["title"] = "Second edition"
        _ = try await database.save(fetched)
    }

    @Test func desiredKeysWithoutTheAssetSkipTheDownload() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let database = container.publicCloudDatabase
        let record = CKRecord(recordType: "Song")
        record["title"] = "Blackbird"
        record["audio"] = CKAsset(fileURL: try Self.makeFile(5000, seed: 9))
        _ = try await database.save(record)
        let cache = server.assetCacheFolder(of: container)

        let listing = try await database.records(for: [record.recordID], desiredKeys: ["title"])
        let light = try #require(try listing[record.recordID]?.get())
        #expect(light["title"] as? String == "Blackbird")
        #expect(light["audio"] == nil)
        let downloaded = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        #expect(downloaded.isEmpty, "nothing downloaded for a fetch without the asset field")

        let (matches, _) = try await database.records(
            matching: CKQuery(recordType: "Song", predicate: NSPredicate(value: true)),
            desiredKeys: ["audio"])
        let full = try #require(try matches.first?.1.get())
        #expect((full["audio"] as? CKAsset)?.fileURL?.deletingLastPathComponent().path == cache.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasPrefix(".") }.count == 1)
    }

    @Test func uploadsRunInParallelAndRetryADroppedConnection() async throws {
        let server = try await LiveServer.shared()
        let transport = FlakyUploads(dropFirst: 1)
        let database = try await server.makeContainer(transport: transport).publicCloudDatabase
        let records = try (0..<6).map { index -> CKRecord in
            let record = CKRecord(recordType: "Clip")
            record["video"] = CKAsset(fileURL: try Self.makeFile(200_000, seed: UInt8(20 + index)))
            return record
        }
        let results = try await database.modifyRecords(saving: records, deleting: [], atomically: false)
        for record in records { #expect(throws: Never.self) { try results.saveResults[record.recordID]?.get() } }
        #expect(transport.uploads == 7, "six files, one of them sent twice")
        #expect(transport.mostAtOnce > 1, "uploads overlap")
    }
}

/// The real URLSession transport, except that the first `dropFirst` uploads fail as a dropped
/// connection would; counts uploads and how many ran at once.
final class FlakyUploads: StratusTransport {
    let inner = URLSessionTransport()
    let state: Mutex<(dropsLeft: Int, uploads: Int, running: Int, most: Int)>

    init(dropFirst: Int) { state = Mutex((dropFirst, 0, 0, 0)) }

    var uploads: Int { state.withLock { $0.uploads } }
    var mostAtOnce: Int { state.withLock { $0.most } }

    func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse { try await inner.send(request) }

    func download(_ request: StratusHTTPRequest, to destination: URL) async throws -> StratusHTTPResponse {
        try await inner.download(request, to: destination)
    }

    func upload(_ request: StratusHTTPRequest, fromFile file: URL) async throws -> StratusHTTPResponse {
        let drop = state.withLock { state -> Bool in
            state.uploads += 1
            state.running += 1
            state.most = max(state.most, state.running)
            if state.dropsLeft > 0 { state.dropsLeft -= 1; return true }
            return false
        }
        defer { state.withLock { $0.running -= 1 } }
        // Hold each upload a moment so overlapping ones are observable.
        try await Task.sleep(for: .milliseconds(50))
        if drop { throw URLError(.networkConnectionLost) }
        return try await inner.upload(request, fromFile: file)
    }
}

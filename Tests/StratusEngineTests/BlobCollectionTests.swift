import Foundation
import StratusEngine
import Testing

/// Blob collection in two steps, so bytes are deleted only after the transaction that marked them
/// unreferenced committed, and a save or upload racing a collection never loses a file.
@Suite("blob collection")
struct BlobCollectionTests {
    @Test("a blob being collected is gone for saves, comes back with an upload, and is deleted only while still marked")
    func markThenDelete() async throws {
        let fixture = try await EngineFixture.make()
        let old: Int64 = 1_000
        try await fixture.storage.write { writer in
            try await writer.touchBlob(checksum: "aa", size: 3, atMilliseconds: old)
            try await writer.touchBlob(checksum: "bb", size: 4, atMilliseconds: old)
        }
        let marked = try await fixture.storage.write { writer in try await writer.markCollectableBlobs(before: 2_000, limit: 10) }
        #expect(Set(marked) == ["aa", "bb"])
        #expect(
            try await fixture.storage.write { writer in try await writer.blobSize(checksum: "aa") } == nil,
            "a save cannot reference a blob being collected")
        // "bb" is uploaded again before the bytes go: it must survive.
        try await fixture.storage.write { writer in try await writer.touchBlob(checksum: "bb", size: 4, atMilliseconds: 5_000) }
        #expect(try await fixture.storage.write { writer in try await writer.blobSize(checksum: "bb") } == 4)
        #expect(try await fixture.storage.write { writer in try await writer.lockMarkedBlob(checksum: "bb") } == false)
        #expect(try await fixture.storage.write { writer in try await writer.lockMarkedBlob(checksum: "aa") } == true)

        // A collection run later (both unreferenced, both past the grace period) deletes the
        // bytes of each, then its row.
        let deleted = Deleted()
        let removed = try await fixture.engine.collectUnreferencedBlobs(gracePeriod: 0, now: 10_000_000) { checksum in
            await deleted.add(checksum)
        }
        let checksums = await deleted.checksums
        #expect(removed == 2 && Set(checksums) == ["aa", "bb"], "deleted: \(checksums)")
        for checksum in ["aa", "bb"] {
            #expect(try await fixture.storage.write { writer in try await writer.blobSize(checksum: checksum) } == nil)
        }
        await fixture.close()
    }
}

private actor Deleted {
    var checksums: [String] = []
    func add(_ checksum: String) { checksums.append(checksum) }
}

import Crypto
import Foundation
import StratusEngine
import StratusS3
import StratusStore
import Testing

/// The `BlobStore` contract, against a real folder and a real S3-compatible server (moto).
@Suite struct BlobStoreTests {
    enum Backend: String, CaseIterable, Sendable { case folder, s3 }

    /// Runs `body` with a store of the given backend, cleaned up afterwards.
    func withStore(_ backend: Backend, _ body: (any BlobStore, URL) async throws -> Void) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-blobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        switch backend {
        case .folder:
            try await body(FileBlobStore(root: scratch.appendingPathComponent("blobs")), scratch)
        case .s3:
            try await MotoServer.with { moto in try await body(try await moto.makeBlobStore(), scratch) }
        }
    }

    /// Writes bytes to a spool file and answers it with its checksum.
    func spool(_ bytes: [UInt8], in folder: URL) throws -> (URL, String) {
        let file = folder.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: file)
        return (file, hexString(SHA256.hash(data: Data(bytes))))
    }

    func readAll(_ store: any BlobStore, _ checksum: String, _ range: Range<Int64>) async throws -> [UInt8]? {
        guard let reader = try await store.open(checksum: checksum, range: range) else { return nil }
        var bytes: [UInt8] = []
        while let chunk = try await reader.next() { bytes += chunk }
        return bytes
    }

    @Test(arguments: Backend.allCases)
    func storesReadsRangesAndDeletes(_ backend: Backend) async throws {
        try await withStore(backend) { store, scratch in
            let bytes = sampleBytes(700_000, seed: 31)
            let (file, checksum) = try spool(bytes, in: scratch)
            #expect(try await store.contains(checksum: checksum) == false)
            #expect(try await store.open(checksum: checksum, range: 0..<10) == nil)
            try await store.put(checksum: checksum, size: Int64(bytes.count), file: file)
            #expect(!FileManager.default.fileExists(atPath: file.path), "the spool file is consumed")
            #expect(try await store.contains(checksum: checksum))
            #expect(try await readAll(store, checksum, 0..<Int64(bytes.count)) == bytes)
            #expect(try await readAll(store, checksum, 300_000..<300_100) == Array(bytes[300_000..<300_100]))
            #expect(try await readAll(store, checksum, 5..<5) == [])

            // The same bytes again: still one blob, same content.
            let (again, _) = try spool(bytes, in: scratch)
            try await store.put(checksum: checksum, size: Int64(bytes.count), file: again)
            #expect(try await readAll(store, checksum, 0..<Int64(bytes.count)) == bytes)

            try await store.delete(checksum: checksum)
            #expect(try await store.contains(checksum: checksum) == false)
            try await store.delete(checksum: checksum) // deleting a missing blob is fine
        }
    }

    @Test(arguments: Backend.allCases)
    func emptyBlob(_ backend: Backend) async throws {
        try await withStore(backend) { store, scratch in
            let (file, checksum) = try spool([], in: scratch)
            try await store.put(checksum: checksum, size: 0, file: file)
            #expect(try await store.contains(checksum: checksum))
            #expect(try await readAll(store, checksum, 0..<0) == [])
        }
    }

    @Test func assetFlowOverS3IsByteIdenticalAndCollectsFromTheBucket() async throws {
        try await MotoServer.with { moto in
            let store = try await moto.makeBlobStore()
            try await AssetFixture.run(blobStore: store) { fixture in
                let bytes = sampleBytes(3_000_000, seed: 41)
                let single = try await fixture.upload(bytes, record: "doc")
                let checksum = try #require(single["fileChecksum"]?.stringValue)
                #expect(try await store.contains(checksum: checksum))
                #expect(try await fixture.save(record: "doc", asset: single).json.record(0)?["serverErrorCode"] == nil)
                let url = try #require(try await fixture.lookup("doc")["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)
                #expect(try await fixture.download(url).body == bytes)
                let part = try await fixture.download(url, headers: [.range: "bytes=1000000-1000999"])
                #expect(part.status == 206 && part.body == Array(bytes[1_000_000..<1_001_000]))

                try await fixture.delete(record: "doc")
                // Collect as if the receipt lifetime (the least grace a collector keeps) had passed.
                #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 1)
                #expect(try await store.contains(checksum: checksum) == false)
            }
        }
    }

    /// moto checks every signature: temporary credentials work with their session token, and a
    /// wrong secret or a missing token is refused, so the signer is what makes the requests pass.
    @Test func theServerVerifiesEverySignature() async throws {
        try await MotoServer.with { moto in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-blobs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }

            let temporary = try await moto.makeBlobStore(.temporary)
            let bytes = sampleBytes(100_000, seed: 7)
            let (file, checksum) = try spool(bytes, in: scratch)
            try await temporary.put(checksum: checksum, size: Int64(bytes.count), file: file)
            #expect(try await readAll(temporary, checksum, 0..<Int64(bytes.count)) == bytes)

            for signing in [MotoServer.Signing.wrongSecret, .temporaryWithoutToken] {
                let refused = S3BlobStore(configuration: moto.configuration(signing))
                let error = await #expect(throws: BlobStoreError.self, "\(signing) must be refused") {
                    try await refused.createBucketIfMissing()
                }
                #expect(error?.description.contains("HTTP 403") == true, "\(String(describing: error))")
            }
        }
    }

    /// A key prefix with a space is sent and signed encoded once (`%20`). moto's own check gets
    /// keys with `+` or non-ASCII letters wrong (boto3's requests fail it too), so their encoding
    /// is checked in SignatureV4Tests.
    @Test func keysWithSpacesAreSignedAsSent() async throws {
        try await MotoServer.with { moto in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-blobs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let store = try await moto.makeBlobStore(prefix: "asset files/")
            let bytes = sampleBytes(10_000, seed: 9)
            let (file, checksum) = try spool(bytes, in: scratch)
            try await store.put(checksum: checksum, size: Int64(bytes.count), file: file)
            #expect(try await store.contains(checksum: checksum))
            #expect(try await readAll(store, checksum, 0..<Int64(bytes.count)) == bytes)
        }
    }
}

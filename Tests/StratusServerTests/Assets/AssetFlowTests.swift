import Crypto
import Foundation
import HTTPTypes
import StratusEngine
import StratusModel
import Testing

/// The asset flow of docs/protocol.md §8 against a real SQLite file and a real blob folder.
@Suite struct AssetFlowTests {
    @Test(arguments: [0, 1, 300_000])
    func uploadSaveFetchDownloadIsByteIdentical(size: Int) async throws {
        try await AssetFixture.run { fixture in
            let bytes = sampleBytes(size, seed: UInt64(size + 1))
            let single = try await fixture.upload(bytes, record: "doc")
            #expect(single["size"]?.int64Value == Int64(size))
            #expect(single["fileChecksum"]?.stringValue == hexString(SHA256.hash(data: Data(bytes))))
            for key in ["receipt", "wrappingKey", "referenceChecksum"] { #expect(single[key]?.stringValue != nil) }

            let (status, saved) = try await fixture.save(record: "doc", asset: single)
            #expect(status == 200)
            #expect(saved.record(0)?["serverErrorCode"] == nil)
            let asset = try #require(try await fixture.lookup("doc")["fields"]?["file"])
            #expect(asset["type"]?.stringValue == "ASSETID")
            #expect(asset["value"]?["receipt"] == nil)
            let url = try #require(asset["value"]?["downloadURL"]?.stringValue)
            #expect(url.hasSuffix("/${f}"))
            let (downloadStatus, body, headers) = try await fixture.download(url)
            #expect(downloadStatus == 200)
            #expect(body == bytes)
            #expect(headers[.contentLength] == String(size))
        }
    }

    @Test func listsOfAssetsSaveAndDownloadEachFile() async throws {
        try await AssetFixture.run { fixture in
            let first = sampleBytes(1000, seed: 5), second = sampleBytes(2000, seed: 6)
            let a = try await fixture.upload(first, record: "album", field: "photos")
            let b = try await fixture.upload(second, record: "album", field: "photos")
            let (status, json) = try await fixture.call(
                "records/modify",
                [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "album", "recordType": "Doc",
                                "fields": ["photos": ["value": [a, b], "type": "ASSET_LIST"]],
                            ],
                        ]
                    ]
                ])
            #expect(status == 200 && json.record(0)?["serverErrorCode"] == nil)
            let photos = try #require(try await fixture.lookup("album")["fields"]?["photos"])
            #expect(photos["type"]?.stringValue == "ASSETID_LIST")
            let urls = (photos["value"]?.arrayValue ?? []).compactMap { $0["downloadURL"]?.stringValue }
            #expect(urls.count == 2)
            #expect(try await fixture.download(urls[0]).body == first)
            #expect(try await fixture.download(urls[1]).body == second)
        }
    }

    @Test func queriesLinkAssetsLikeLookups() async throws {
        try await AssetFixture.run { fixture in
            let bytes = sampleBytes(700, seed: 9)
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(bytes, record: "doc"))
            let (status, json) = try await fixture.call("records/query", ["query": ["recordType": "Doc"]])
            #expect(status == 200)
            let asset = try #require(json.record(0)?["fields"]?["file"])
            #expect(asset["type"]?.stringValue == "ASSETID")
            #expect(asset["value"]?["receipt"] == nil)
            let url = try #require(asset["value"]?["downloadURL"]?.stringValue)
            #expect(try await fixture.download(url).body == bytes)
        }
    }

    @Test func desiredKeysWithoutTheAssetLeaveItOut() async throws {
        try await AssetFixture.run { fixture in
            let single = try await fixture.upload(sampleBytes(100), record: "doc")
            _ = try await fixture.save(record: "doc", asset: single)
            let record = try await fixture.lookup("doc", desiredKeys: ["title"])
            #expect(record["recordName"]?.stringValue == "doc")
            #expect(record["fields"]?["file"] == nil)
        }
    }

    @Test func sameBytesUploadedTwiceAreStoredOnce() async throws {
        try await AssetFixture.run { fixture in
            let bytes = sampleBytes(50_000, seed: 3)
            let one = try await fixture.upload(bytes, record: "a")
            let two = try await fixture.upload(bytes, record: "b")
            #expect(one["fileChecksum"] == two["fileChecksum"])
            #expect(fixture.storedBlobCount() == 1)
            _ = try await fixture.upload(sampleBytes(50_000, seed: 4), record: "c")
            #expect(fixture.storedBlobCount() == 2)
        }
    }

    @Test func rangeRequestsAnswerPartialContent() async throws {
        try await AssetFixture.run { fixture in
            let bytes = sampleBytes(10_000, seed: 8)
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(bytes, record: "doc"))
            let url = try #require(try await fixture.lookup("doc")["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)

            let middle = try await fixture.download(url, headers: [.range: "bytes=100-199"])
            #expect(middle.status == 206)
            #expect(middle.body == Array(bytes[100..<200]))
            #expect(middle.headers[.contentRange] == "bytes 100-199/10000")
            #expect(middle.headers[.contentLength] == "100")

            let tail = try await fixture.download(url, headers: [.range: "bytes=-10"])
            #expect(tail.status == 206 && tail.body == Array(bytes[9990...]))
            let open = try await fixture.download(url, headers: [.range: "bytes=9000-"])
            #expect(open.status == 206 && open.body == Array(bytes[9000...]))

            let beyond = try await fixture.download(url, headers: [.range: "bytes=10000-"])
            #expect(beyond.status == 416)
            #expect(beyond.headers[.contentRange] == "bytes */10000")

            let whole = try await fixture.download(url)
            let etag = try #require(whole.headers[.eTag])
            #expect(whole.headers[.acceptRanges] == "bytes")
            let cached = try await fixture.download(url, headers: [.ifNoneMatch: etag])
            #expect(cached.status == 304 && cached.body.isEmpty)
        }
    }
}

import Foundation
import StratusEngine
import StratusModel
import Testing

/// Collection of unreferenced blobs, quotas and the size limit.
@Suite struct AssetLifecycleTests {
    /// A collection pass run as if this much time had passed since the uploads: beyond the receipt
    /// lifetime (the shortest grace period there is). Tests use it instead of sleeping, so they do
    /// not depend on how fast a loaded machine uploads and saves.
    /// Computed at each use: a value fixed when the suite started is not "later" for a test that
    /// runs a minute afterwards in a slow full-suite run.
    static var later: Date { Date.now.addingTimeInterval(Double(EngineLimits().receiptLifetimeSeconds) + 60) }

    @Test func blobIsCollectedAfterItsRecordIsDeletedAndNeverBefore() async throws {
        try await AssetFixture.run() { fixture in
            let bytes = sampleBytes(4096, seed: 11)
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(bytes, record: "doc"))
            // Referenced: survives any number of passes with no grace at all.
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 0)
            #expect(fixture.storedBlobCount() == 1)
            let url = try #require(try await fixture.lookup("doc")["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)
            #expect(try await fixture.download(url).body == bytes)

            try await fixture.delete(record: "doc")
            // Still within the grace period of a long collector.
            #expect(try await fixture.collector(gracePeriod: 3600).collect() == 0)
            #expect(fixture.storedBlobCount() == 1)
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 1)
            #expect(fixture.storedBlobCount() == 0)
            #expect(try await fixture.download(url).status == 404)
        }
    }

    @Test func blobSharedByTwoRecordsSurvivesDeletingOne() async throws {
        try await AssetFixture.run() { fixture in
            let bytes = sampleBytes(2048, seed: 12)
            _ = try await fixture.save(record: "a", asset: try await fixture.upload(bytes, record: "a"))
            _ = try await fixture.save(record: "b", asset: try await fixture.upload(bytes, record: "b"))
            try await fixture.delete(record: "a")
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 0)
            #expect(fixture.storedBlobCount() == 1)
        }
    }

    @Test func replacedAssetAndZoneDeleteAndCascadeReleaseBlobs() async throws {
        try await AssetFixture.run() { fixture in
            // Update: the old file is no longer referenced.
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(sampleBytes(100, seed: 1), record: "doc"))
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(sampleBytes(100, seed: 2), record: "doc"))
            // Cascade: a child with a DELETE_SELF reference to a parent goes with it.
            _ = try await fixture.save(record: "parent", asset: try await fixture.upload(sampleBytes(100, seed: 3), record: "parent"))
            let child = try await fixture.upload(sampleBytes(100, seed: 4), record: "child")
            let (status, json) = try await fixture.call(
                "records/modify",
                [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "child", "recordType": "Doc",
                                "fields": [
                                    "file": ["value": child, "type": "ASSET"],
                                    "owner": ["value": ["recordName": "parent", "action": "DELETE_SELF"], "type": "REFERENCE"],
                                ],
                            ],
                        ]
                    ]
                ])
            #expect(status == 200 && json.record(0)?["serverErrorCode"] == nil, "\(json)")
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 1) // the replaced file
            try await fixture.delete(record: "parent")
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 2) // parent's and child's
            #expect(fixture.storedBlobCount() == 1) // doc's current file
        }
    }

    @Test func zoneDeleteReleasesItsBlobs() async throws {
        try await AssetFixture.run() { publicFixture in
            let fixture = try await publicFixture.asNewUser()
            let zone: JSONValue = ["zoneName": "photos"]
            _ = try await fixture.call("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zone]]]])
            let path = try await fixture.uploadPath(record: "p", zone: "photos")
            let single = try #require(try await fixture.post(sampleBytes(500), to: path).json["singleFile"])
            let (status, json) = try await fixture.call(
                "records/modify",
                [
                    "zoneID": zone,
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "p", "recordType": "Doc",
                                "fields": ["file": ["value": single]],
                            ],
                        ]
                    ],
                ])
            #expect(status == 200 && json.record(0)?["serverErrorCode"] == nil)
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 0)
            _ = try await fixture.call("zones/modify", ["operations": [["operationType": "delete", "zone": ["zoneID": zone]]]])
            #expect(try await fixture.collector(gracePeriod: 0).collect(now: AssetLifecycleTests.later) == 1)
        }
    }

    @Test func uploadOverTheQuotaIsQuotaExceeded() async throws {
        var limits = EngineLimits()
        limits.publicAssetQuotaBytes = 10_000
        try await AssetFixture.run(limits: limits) { fixture in
            _ = try await fixture.save(record: "a", asset: try await fixture.upload(sampleBytes(6000, seed: 1), record: "a"))
            let refused = try await fixture.post(sampleBytes(6000, seed: 2), to: try await fixture.uploadPath(record: "b"))
            #expect(refused.status == 413)
            #expect(refused.json["serverErrorCode"]?.stringValue == "QUOTA_EXCEEDED")
            #expect(refused.json["reason"]?.stringValue?.contains("quota of 10000 bytes") == true)
            // The same bytes again cost nothing: the database already holds them.
            let same = try await fixture.upload(sampleBytes(6000, seed: 1), record: "c")
            #expect(try await fixture.save(record: "c", asset: same).json.record(0)?["serverErrorCode"] == nil)
            let usage = try await fixture.engine.assetUsage(container: AssetFixture.container)
            #expect(usage.map(\.bytes) == [6000])
        }
    }

    @Test func savesThatTogetherPassTheQuotaAreRefused() async throws {
        var limits = EngineLimits()
        limits.publicAssetQuotaBytes = 10_000
        try await AssetFixture.run(limits: limits) { fixture in
            // Both uploads fit alone; saving the second would pass the quota.
            let a = try await fixture.upload(sampleBytes(6000, seed: 1), record: "a")
            let b = try await fixture.upload(sampleBytes(6000, seed: 2), record: "b")
            #expect(try await fixture.save(record: "a", asset: a).json.record(0)?["serverErrorCode"] == nil)
            let refused = try await fixture.save(record: "b", asset: b)
            #expect(refused.json.record(0)?["serverErrorCode"]?.stringValue == "QUOTA_EXCEEDED")
        }
    }

    @Test func fileOverTheMaximumSizeIsRefusedAndLeavesNothing() async throws {
        var limits = EngineLimits()
        limits.maximumAssetBytes = 1000
        try await AssetFixture.run(limits: limits) { fixture in
            let refused = try await fixture.post(sampleBytes(1001), to: try await fixture.uploadPath(record: "doc"))
            #expect(refused.status == 400)
            #expect(refused.json["reason"]?.stringValue?.contains("largest asset this server accepts is 1000 bytes") == true)
            #expect(fixture.storedBlobCount() == 0)
            let spool = fixture.blobsFolder.appendingPathComponent("incoming")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []).isEmpty)
        }
    }

    @Test func rereferenceCopiesAnAssetIntoAnotherRecord() async throws {
        try await AssetFixture.run { fixture in
            let bytes = sampleBytes(700, seed: 21)
            _ = try await fixture.save(record: "source", asset: try await fixture.upload(bytes, record: "source"))
            let (status, json) = try await fixture.call("assets/rereference", ["assets": [["recordName": "source", "fieldName": "file"]]])
            #expect(status == 200)
            let copy = try #require(json["assets"]?[0]?["value"])
            let saved = try await fixture.save(record: "copy", field: "attachment", asset: copy)
            #expect(saved.json.record(0)?["serverErrorCode"] == nil)
            let url = try #require(try await fixture.lookup("copy")["fields"]?["attachment"]?["value"]?["downloadURL"]?.stringValue)
            #expect(try await fixture.download(url).body == bytes)
            #expect(fixture.storedBlobCount() == 1)
        }
    }
}

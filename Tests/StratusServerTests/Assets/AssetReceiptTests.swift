import Foundation
import StratusEngine
import StratusModel
import Testing

/// records/modify accepts only assets whose receipt came from a finished upload for that very
/// store, zone, record and field.
@Suite struct AssetReceiptTests {
    func refusal(_ result: (status: Int, json: JSONValue)) -> String? {
        guard let element = result.json.record(0), element["serverErrorCode"]?.stringValue == "BAD_REQUEST" else { return nil }
        return element["reason"]?.stringValue
    }

    @Test func forgedReceiptIsRefused() async throws {
        try await AssetFixture.run { fixture in
            var single = try await fixture.upload(sampleBytes(64), record: "doc").objectValue ?? [:]
            let receipt = single["receipt"]?.stringValue ?? ""
            // Flip one character of the signed payload.
            var characters = Array(receipt)
            characters[5] = characters[5] == "A" ? "B" : "A"
            single["receipt"] = .string(String(characters))
            let reason = refusal(try await fixture.save(record: "doc", asset: .object(single)))
            #expect(reason?.contains("not one this server issued") == true)
            #expect(try await fixture.lookup("doc")["serverErrorCode"]?.stringValue == "NOT_FOUND")
        }
    }

    @Test func assetWithoutReceiptIsRefused() async throws {
        try await AssetFixture.run { fixture in
            let made: JSONValue = ["fileChecksum": .string(String(repeating: "a", count: 64)), "size": 10]
            let reason = refusal(try await fixture.save(record: "doc", asset: made))
            #expect(reason?.contains("has no receipt") == true)
        }
    }

    @Test func receiptForAnotherFieldOrRecordIsRefused() async throws {
        try await AssetFixture.run { fixture in
            let single = try await fixture.upload(sampleBytes(64), record: "doc", field: "cover")
            let otherField = refusal(try await fixture.save(record: "doc", field: "back", asset: single))
            #expect(otherField?.contains("issued for field 'cover' of record 'doc'") == true)
            let otherRecord = refusal(try await fixture.save(record: "other", field: "cover", asset: single))
            #expect(otherRecord?.contains("issued for field 'cover' of record 'doc'") == true)
            // The field and record it was issued for accept it.
            #expect(try await fixture.save(record: "doc", field: "cover", asset: single).status == 200)
        }
    }

    @Test func tamperedSizeIsRefused() async throws {
        try await AssetFixture.run { fixture in
            var single = try await fixture.upload(sampleBytes(64), record: "doc").objectValue ?? [:]
            single["size"] = 1
            let reason = refusal(try await fixture.save(record: "doc", asset: .object(single)))
            #expect(reason?.contains("does not match the receipt") == true)
        }
    }

    @Test func expiredReceiptIsRefused() async throws {
        var limits = EngineLimits()
        limits.receiptLifetimeSeconds = 0
        try await AssetFixture.run(limits: limits) { fixture in
            let single = try await fixture.upload(sampleBytes(64), record: "doc")
            try await Task.sleep(for: .milliseconds(20))
            let reason = refusal(try await fixture.save(record: "doc", asset: single))
            #expect(reason?.contains("expired") == true)
        }
    }

    @Test func forgedOrExpiredUploadURLIsRefused() async throws {
        var limits = EngineLimits()
        limits.uploadURLLifetimeSeconds = 0
        try await AssetFixture.run(limits: limits) { fixture in
            let path = try await fixture.uploadPath(record: "doc")
            try await Task.sleep(for: .milliseconds(20))
            let expired = try await fixture.post(sampleBytes(10), to: path)
            #expect(expired.status == 403)
            #expect(expired.json["reason"]?.stringValue?.contains("expired") == true)
            let forged = try await fixture.post(sampleBytes(10), to: "/assets/1/upload/e30.AAAA")
            #expect(forged.status == 403)
            #expect(fixture.storedBlobCount() == 0)
        }
    }

    @Test func savingAFetchedAssetBackNeedsNoReceipt() async throws {
        try await AssetFixture.run { fixture in
            _ = try await fixture.save(record: "doc", asset: try await fixture.upload(sampleBytes(64), record: "doc"))
            let fetched = try #require(try await fixture.lookup("doc")["fields"]?["file"]?["value"])
            let again = try await fixture.save(record: "doc", asset: fetched)
            #expect(again.status == 200 && again.json.record(0)?["serverErrorCode"] == nil)
        }
    }
}

import Foundation
@testable import StratusKit
import Testing

/// The system-fields cache idiom: archive with `encodeSystemFields(with:)`, restore with
/// `CKRecord(coder:)` through secure keyed coding.
@Suite("System-field archiving")
struct SystemFieldArchiveTests {
    func savedRecord() -> CKRecord {
        let zone = CKRecordZone.ID(zoneName: "moviesZone")
        let record = CKRecord(recordType: "Movie", recordID: CKRecord.ID(recordName: "m1", zoneID: zone))
        record.recordChangeTag = "tag-7"
        record.creationDate = Date(timeIntervalSince1970: 1_000)
        record.modificationDate = Date(timeIntervalSince1970: 2_000)
        record.creatorUserRecordID = CKRecord.ID(recordName: "_creator")
        record.lastModifiedUserRecordID = CKRecord.ID(recordName: "_modifier")
        record["title"] = "Alien"
        record["year"] = 1979
        record.setParent(CKRecord.ID(recordName: "collection", zoneID: zone))
        return record
    }

    @Test func systemFieldsRoundTripWithoutValues() throws {
        let original = savedRecord()
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        original.encodeSystemFields(with: archiver)
        archiver.finishEncoding()
        let data = archiver.encodedData

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let restored = try #require(CKRecord(coder: unarchiver))
        unarchiver.finishDecoding()

        #expect(restored.recordID == original.recordID)
        #expect(restored.recordID.zoneID.zoneName == "moviesZone")
        #expect(restored.recordType == "Movie")
        #expect(restored.recordChangeTag == "tag-7")
        #expect(restored.creationDate == original.creationDate)
        #expect(restored.modificationDate == original.modificationDate)
        #expect(restored.creatorUserRecordID?.recordName == "_creator")
        #expect(restored.lastModifiedUserRecordID?.recordName == "_modifier")
        #expect(restored.parent?.recordID.recordName == "collection")
        #expect(restored.allKeys().isEmpty)
        #expect(restored.changedKeys().isEmpty)
    }

    @Test func wholeRecordRoundTripsThroughArchivedData() throws {
        let original = savedRecord()
        original["tags"] = ["sci-fi", "horror"]
        original["when"] = Date(timeIntervalSince1970: 1_234.5)
        original["owner"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "o"), action: .deleteSelf)
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data))
        #expect(restored.recordChangeTag == "tag-7")
        #expect(restored["title"] as? String == "Alien")
        #expect(restored["year"] as? Int == 1979)
        #expect(restored["tags"] as? [String] == ["sci-fi", "horror"])
        #expect(restored["when"] as? Date == Date(timeIntervalSince1970: 1_234.5))
        #expect((restored["owner"] as? CKRecord.Reference)?.action == .deleteSelf)
        #expect(restored.allKeys() == original.allKeys())
    }

    @Test func archiveWithoutRecordGivesNil() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode("nothing" as NSString, forKey: "other")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        #expect(CKRecord(coder: unarchiver) == nil)
    }
}

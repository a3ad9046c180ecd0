import Foundation
import StratusKit
import Testing

/// The record subscript idioms of CloudKit code (https://developer.apple.com/documentation/cloudkit/ckrecord) behave as on Apple platforms.
@Suite("CKRecord values")
struct RecordValueTests {
    @Test func stringIdioms() {
        let record = CKRecord(recordType: "Note")
        record["title"] = "Hello"
        record["body"] = "World" as CKRecordValue
        record.setObject("Third" as NSString, forKey: "third")
        let typed: String? = record["title"]
        #expect(typed == "Hello")
        #expect(record["body"] as? String == "World")
        #expect(record.object(forKey: "third") as? String == "Third")
        #expect(record["title"] as? NSString == "Hello")
        #expect(record.value(forKey: "body") as? String == "World")
    }

    @Test func numbersReadBackAtAnyWidth() {
        let record = CKRecord(recordType: "Stats")
        record["n"] = 5
        record["big"] = Int64(1) << 40
        record["ratio"] = 2.5
        record["ns"] = NSNumber(value: 7)
        record["flag"] = true
        #expect(record["n"] as? Int == 5)
        #expect(record["n"] as? Int64 == 5)
        #expect(record["n"] as? Double == 5)
        let n: Int? = record["n"]
        #expect(n == 5)
        let n32: Int32? = record["n"]
        #expect(n32 == 5)
        #expect(record["big"] as? Int64 == 1 << 40)
        #expect(record["ratio"] as? Double == 2.5)
        let truncated: Int? = record["ratio"]
        #expect(truncated == 2)
        #expect(record["ns"] as? Int == 7)
        let flag: Bool? = record["flag"]
        #expect(flag == true)
        #expect(record["flag"] as? Bool == true)
    }

    @Test func otherValueTypes() {
        let record = CKRecord(recordType: "Mixed")
        let date = Date(timeIntervalSince1970: 1000)
        let target = CKRecord.ID(recordName: "target")
        record["when"] = date
        record["blob"] = Data([1, 2, 3])
        record["owner"] = CKRecord.Reference(recordID: target, action: .deleteSelf)
        record["where"] = CLLocation(latitude: 48.85, longitude: 2.35)
        record["tags"] = ["a", "b"]
        record["scores"] = [1, 2, 3]
        record["file"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/x.txt"))
        #expect(record["when"] as? Date == date)
        #expect(record["blob"] as? Data == Data([1, 2, 3]))
        #expect((record["owner"] as? CKRecord.Reference)?.recordID == target)
        #expect((record["owner"] as? CKRecord.Reference)?.action == .deleteSelf)
        #expect((record["where"] as? CLLocation)?.coordinate.latitude == 48.85)
        #expect(record["tags"] as? [String] == ["a", "b"])
        #expect(record["scores"] as? [Int] == [1, 2, 3])
        let scores: [Int64]? = record["scores"]
        #expect(scores == [1, 2, 3])
        #expect((record["file"] as? CKAsset)?.fileURL?.path == "/tmp/x.txt")
    }

    @Test func keysAndChanges() {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
        record["b"] = "1"
        record["a"] = "2"
        record["b"] = "3"
        #expect(record.allKeys() == ["a", "b"])
        #expect(record.changedKeys() == ["b", "a"])
        record["a"] = nil
        #expect(record.allKeys() == ["b"])
        #expect(record["a"] == nil)
        var seen: [String] = []
        for (key, value) in record { seen.append("\(key)=\(value)") }
        #expect(seen == ["b=3"])
        #expect(record.recordID.recordName == "n1")
        #expect(record.recordID.zoneID == CKRecordZone.ID.default)
        #expect(record.recordChangeTag == nil && record.creationDate == nil)
    }

    @Test func identifiersCompareByValue() {
        let a = CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "z"))
        let b = CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "z", ownerName: CKCurrentUserDefaultName))
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != CKRecord.ID(recordName: "x"))
        #expect(CKRecordZone.ID.default.zoneName == "_defaultZone")
        #expect(CKRecordZone.default().zoneID == .default)
        let parent = CKRecord(recordType: "P")
        let child = CKRecord(recordType: "C")
        child.setParent(parent)
        #expect(child.parent?.recordID == parent.recordID)
        #expect(child.parent?.action == CKRecord.ReferenceAction.none)
    }

    @Test func locationDistance() {
        let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
        let london = CLLocation(latitude: 51.5074, longitude: -0.1278)
        let km = paris.distance(from: london) / 1000
        #expect(km > 340 && km < 345)
    }

    @Test func encryptedValuesAreTheRecordsFields() {
        let record = CKRecord(recordType: "Secret")
        record.encryptedValues["pin"] = "1234"
        let pin: String? = record.encryptedValues["pin"]
        #expect(pin == "1234")
        #expect(record.encryptedValues["pin"] as? String == "1234")
        #expect(record.changedKeys() == ["pin"])
    }
}

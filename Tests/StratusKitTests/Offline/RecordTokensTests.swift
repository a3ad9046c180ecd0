import Foundation
import StratusKit
import Testing

@Suite("CKRecord.allTokens and zone encryption scope")
struct RecordTokensTests {
    @Test func tokensAreTheLowercasedWordsOfStringValuesOnce() {
        let record = CKRecord(recordType: "Note")
        record["title"] = "Bob's Pizza, Bob's way"
        record["tags"] = ["Fast-Food", "pizza"]
        record["count"] = 3
        #expect(record.allTokens() == ["fast", "food", "pizza", "bob", "s", "way"])
    }

    @Test func zonesKeepTheirEncryptionScope() {
        let zone = CKRecordZone(zoneName: "vault")
        #expect(zone.encryptionScope == .perRecord)
        zone.encryptionScope = .perZone
        #expect(zone.encryptionScope.rawValue == 1)
    }
}

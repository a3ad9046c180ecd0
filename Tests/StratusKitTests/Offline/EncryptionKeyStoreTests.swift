import Foundation
import StratusKit
import Testing

@Suite("Encryption key store and encrypted values offline")
struct EncryptionKeyStoreTests {
    @Test func theFileStoreKeepsKeysReadableOnlyByTheOwner() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratuskit-keystore-\(UUID().uuidString)")
        let store = StratusFileKeyStore(folder: folder)
        #expect(try store.key(named: "iCloud.example._user") == nil)
        let key = Data((0..<32).map { UInt8($0) })
        try store.store(key, named: "iCloud.example._user")
        #expect(try store.key(named: "iCloud.example._user") == key)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        try Data("not a key".utf8).write(to: folder.appendingPathComponent(file))
        #expect(throws: CKError.self) { try store.key(named: "iCloud.example._user") }
    }

    @Test func encryptedValuesAreTheirOwnViewAndSurviveArchiving() throws {
        let record = CKRecord(recordType: "Vault")
        record["title"] = "plain"
        record.encryptedValues["secret"] = "hidden"
        #expect(record.encryptedValues.allKeys() == ["secret"])
        #expect(record.encryptedValues["title"] == nil)
        #expect(record.allTokens() == ["plain"], "encrypted values are not searchable")
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encode(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.requiresSecureCoding = true
        let restored = try #require(CKRecord(coder: decoder))
        #expect(restored.encryptedValues["secret"] as? String == "hidden", "an archived record still knows which values to encrypt")
        let copy = try #require(record.copy() as? CKRecord)
        #expect(copy.encryptedValues.allKeys() == ["secret"])
        record.encryptedValues["secret"] = nil
        #expect(record.encryptedValues.allKeys().isEmpty && record["secret"] == nil)
    }
}

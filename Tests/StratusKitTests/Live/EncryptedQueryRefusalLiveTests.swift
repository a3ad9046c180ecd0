import Foundation
import StratusKit
import Testing

/// The refusal of queries on encrypted fields outlives the process that learnt which fields
/// are encrypted.
@Suite("Encrypted-field query refusal across processes against a live server")
struct EncryptedQueryRefusalLiveTests {
    func temporaryFolder(_ label: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stratuskit-\(label)-\(UUID().uuidString)")
    }

    /// A new container object (as a new process makes) sharing the key folder and, unless
    /// another is given, the encrypted-fields folder.
    func process(_ configuration: StratusConfiguration, encryptedFieldsFolder: URL? = nil) -> CKContainer {
        var configuration = configuration
        if let encryptedFieldsFolder { configuration.encryptedFieldsFolder = encryptedFieldsFolder }
        return CKContainer(configuration: configuration)
    }

    func refusal(_ database: CKDatabase) async -> String? {
        do {
            _ = try await database.records(matching: CKQuery(recordType: "Diary", predicate: NSPredicate(format: "entry == %@", "x")))
            return nil
        } catch let error as CKError {
            return error.code == .invalidArguments ? error.localizedDescription : "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aFreshProcessRefusesAQueryOnAFieldAnEarlierOneSavedEncrypted() async throws {
        let server = try await LiveServer.shared()
        var configuration = try #require(server.configuration(of: try await server.makeContainer()))
        configuration.encryptionKeyStore = StratusFileKeyStore(folder: temporaryFolder("keys"))
        configuration.encryptedFieldsFolder = temporaryFolder("fields")

        let first = process(configuration)
        let record = CKRecord(recordType: "Diary")
        record.encryptedValues["entry"] = "x"
        record["day"] = 1
        try await first.privateCloudDatabase.save(record)

        let message = try #require(
            await refusal(process(configuration).privateCloudDatabase),
            "a fresh process sent a query on an encrypted field")
        #expect(message.contains("'Diary.entry' holds encrypted values"))
        // A process that never learnt it (its own, empty folder) sends the query: the file is what refuses.
        let unaware = await refusal(process(configuration, encryptedFieldsFolder: temporaryFolder("other")).privateCloudDatabase)
        #expect(unaware?.contains("holds encrypted values") != true)
        // Plain fields still query.
        let plain = try await process(configuration).privateCloudDatabase
            .records(matching: CKQuery(recordType: "Diary", predicate: NSPredicate(format: "day == %d", 1)))
        #expect(plain.matchResults.count == 1)
    }
}

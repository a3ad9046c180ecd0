import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusEngine
import StratusKit
import StratusModel
import Testing

/// `record.encryptedValues` end to end: sealed on the device, ciphertext on the server, opened on
/// fetch, refused in queries, and unreadable without the key.
@Suite("Encrypted values against a live server")
struct EncryptedValuesLiveTests {
    /// The container as seen by a device whose keys live in `keys` (a folder of its own).
    func device(_ server: LiveServer, _ container: CKContainer, keys: URL) throws -> CKContainer {
        var configuration = try #require(server.configuration(of: container))
        configuration.encryptionKeyStore = StratusFileKeyStore(folder: keys)
        return CKContainer(configuration: configuration)
    }

    func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stratuskit-keys-\(UUID().uuidString)")
    }

    @Test func encryptedValuesAreCiphertextOnTheServerAndPlainOnTheDevice() async throws {
        let server = try await LiveServer.shared()
        let keys = temporaryFolder()
        let container = try device(server, try await server.makeContainer(), keys: keys)
        let database = container.privateCloudDatabase
        let secret = "launch code \(UUID().uuidString)"
        let record = CKRecord(recordType: "Vault", recordID: CKRecord.ID(recordName: "v1"))
        record["title"] = "plain title"
        record.encryptedValues["secret"] = secret
        record.encryptedValues["pin"] = 4242
        let saved = try await database.save(record)
        #expect(saved.encryptedValues["secret"] as? String == secret, "the saved record stays readable")

        // Another process of the same device (same key store) reads the values back.
        let fetched = try await self.device(server, container, keys: keys).privateCloudDatabase.record(for: record.recordID)
        #expect(fetched.encryptedValues["secret"] as? String == secret)
        #expect(fetched.encryptedValues["pin"] as? Int == 4242)
        #expect(fetched["title"] as? String == "plain title")
        #expect(fetched.encryptedValues["title"] == nil, "a plain value is not an encrypted one")

        // records/lookup, as any CKWS client sees it, holds no plaintext.
        let configuration = try #require(server.configuration(of: container))
        let token = configuration.webAuthToken?.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var request = URLRequest(
            url: try #require(
                URL(
                    string:
                        "\(server.baseURL.absoluteString)/database/1/\(configuration.containerIdentifier)/development/private/records/lookup?ckAPIToken=\(configuration.apiToken)&ckWebAuthToken=\(token)"
                )))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"records":[{"recordName":"v1"}]}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("plain title"), "the lookup answered the record")
        #expect(!text.contains(secret) && !text.contains("4242"))
        #expect(text.contains("BYTES"), "encrypted values are stored as bytes")

        // Nor does the server's storage (either backend): the stored value is ciphertext bytes.
        let user = try await container.userRecordID().recordName
        let store = StoreKey(container: configuration.containerIdentifier, environment: .development, scope: .private, owner: user)
        let rows = try await server.engine.storage.read { reader in try await reader.records(store, zoneName: "_defaultZone", names: ["v1"]) }
        let row = try #require(rows["v1"])
        guard case .bytes(let stored)? = row.fields["secret"] else {
            Issue.record("the server stored \(String(describing: row.fields["secret"])) for an encrypted value")
            return
        }
        #expect(stored.range(of: Data(secret.utf8)) == nil)
        #expect(!String(describing: row).contains(secret))

        // And with SQLite, neither the database file nor its write-ahead log holds it.
        let files = (try? FileManager.default.contentsOfDirectory(at: server.folder, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.lastPathComponent.hasPrefix("stratus.sqlite") {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent) holds the plaintext")
        }
    }

    @Test func queriesOnEncryptedFieldsAreRefused() async throws {
        let server = try await LiveServer.shared()
        let database = try device(server, try await server.makeContainer(), keys: temporaryFolder()).privateCloudDatabase
        let record = CKRecord(recordType: "Vault")
        record.encryptedValues["secret"] = "x"
        try await database.save(record)
        do {
            _ = try await database.records(matching: CKQuery(recordType: "Vault", predicate: NSPredicate(format: "secret == %@", "x")))
            Issue.record("a query on an encrypted field was sent")
        } catch let error as CKError {
            #expect(error.code == .invalidArguments)
            #expect(error.localizedDescription.contains("encrypted"))
        }
        let all = try await database.records(matching: CKQuery(recordType: "Vault", predicate: NSPredicate(value: true)))
        #expect(try all.matchResults.first?.1.get().encryptedValues["secret"] as? String == "x")
    }

    @Test func aDeviceWithoutTheKeyGetsUserDidResetEncryptedDataKey() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let keys = temporaryFolder()
        let record = CKRecord(recordType: "Vault", recordID: CKRecord.ID(recordName: "kept"))
        record.encryptedValues["secret"] = "only with the key"
        try await device(server, container, keys: keys).privateCloudDatabase.save(record)

        let stranger = try device(server, container, keys: temporaryFolder()).privateCloudDatabase
        do {
            _ = try await stranger.record(for: record.recordID)
            Issue.record("a record was read without its key")
        } catch let error as CKError {
            #expect(error.code == .zoneNotFound)
            #expect(error.userInfo[CKErrorUserDidResetEncryptedDataKey] as? Bool == true)
        }

        // Moving the key file to the second device makes the values readable there.
        let moved = temporaryFolder()
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(at: keys, includingPropertiesForKeys: nil) {
            try FileManager.default.copyItem(at: file, to: moved.appendingPathComponent(file.lastPathComponent))
        }
        let second = try device(server, container, keys: moved).privateCloudDatabase
        #expect(try await second.record(for: record.recordID).encryptedValues["secret"] as? String == "only with the key")
    }
}

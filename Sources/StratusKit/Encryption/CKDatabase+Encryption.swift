import Foundation
import StratusModel

// Values set through `record.encryptedValues` leave the device sealed (FieldCipher) and come back
// opened. The key is the signed-in user's, from the configuration's key store.

extension CKDatabase {
    /// The signed-in user's cipher. Saving creates the user's key when the store has none;
    /// fetching never does (a missing key means the values cannot be read here).
    func fieldCipher(creatingKey: Bool) async throws(CKError) -> FieldCipher? {
        let user: String
        if let known = client.encryption.callerRecordName {
            user = known
        } else {
            user = try await client.callerRecordName()
            client.encryption.remember(callerRecordName: user)
        }
        let store = client.configuration.encryptionKeyStore
        let name = "\(client.configuration.containerIdentifier).\(user)"
        do {
            if let key = try store.key(named: name) { return FieldCipher(key: key) }
            guard creatingKey else { return nil }
            var generator = SystemRandomNumberGenerator()
            let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try store.store(key, named: name)
            return FieldCipher(key: key)
        } catch let error as CKError {
            throw error
        } catch {
            throw CKError(.internalError, "the encryption key store failed for '\(name)': \(error)")
        }
    }

    /// For each record with encrypted values, those values sealed, to send in their place.
    func sealedValues(of records: [CKRecord]) async throws(CKError) -> [CKRecord.ID: [String: RecordFieldValue]] {
        let encrypting = records.filter { !$0.encryptedKeys.isEmpty }
        guard !encrypting.isEmpty, let cipher = try await fieldCipher(creatingKey: true) else { return [:] }
        var sealed: [CKRecord.ID: [String: RecordFieldValue]] = [:]
        for record in encrypting {
            client.encryption.note(encryptedFields: record.encryptedKeys, of: record.recordType)
            for key in record.encryptedKeys {
                guard let value = record.fields[key] else { continue }
                guard value.assetsInOrder.isEmpty else {
                    throw CKError(.invalidArguments, "record '\(record.recordID.recordName)' field '\(key)': assets cannot be encrypted values")
                }
                sealed[record.recordID, default: [:]][key] = .bytes(try cipher.seal(value, key: key, recordID: record.recordID))
            }
        }
        return sealed
    }

    /// Opens the sealed values of fetched records. A record whose values were sealed with a key
    /// this device does not have fails with `zoneNotFound` and `CKErrorUserDidResetEncryptedDataKey`.
    func openingSealedValues(_ results: [(CKRecord.ID, Result<CKRecord, any Error>)]) async -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        let sealedRecords = results.contains { _, result in
            guard case .success(let record) = result else { return false }
            return record.fields.values.contains { if case .bytes(let data) = $0 { FieldCipher.isSealed(data) } else { false } }
        }
        guard sealedRecords else { return results }
        let cipher: FieldCipher?
        do { cipher = try await fieldCipher(creatingKey: false) } catch {
            return results.map { id, result in (id, result.flatMap { _ in .failure(error) }) }
        }
        return results.map { id, result in
            guard case .success(let record) = result else { return (id, result) }
            for (key, value) in record.fields {
                guard case .bytes(let data) = value, FieldCipher.isSealed(data) else { continue }
                guard let opened = cipher?.open(data, key: key, recordID: record.recordID) else {
                    return (
                        id,
                        .failure(
                            CKError(
                                .zoneNotFound, "record '\(id.recordName)' field '\(key)' was encrypted with a key this device does not have",
                                extra: [CKErrorUserDidResetEncryptedDataKey: true]))
                    )
                }
                record.fields[key] = opened
                record.encryptedKeys.insert(key)
            }
            client.encryption.note(encryptedFields: record.encryptedKeys, of: record.recordType)
            return (id, result)
        }
    }

    /// Refuses a query that filters or sorts on a field known to hold encrypted values: the
    /// server sees only ciphertext, so such a query could never match (CloudKit refuses it too).
    func refuseEncryptedFields(in query: JSONValue, recordType: CKRecord.RecordType) throws(CKError) {
        let encrypted = client.encryption.encryptedFields(of: recordType)
        guard !encrypted.isEmpty else { return }
        // Filters inside Stratus filter groups count too.
        var named = query["sortBy"]?.arrayValue ?? []
        var pending = query["filterBy"]?.arrayValue ?? []
        while let clause = pending.popLast() {
            named.append(clause)
            pending += (clause["anyOf"]?.arrayValue ?? []) + (clause["allOf"]?.arrayValue ?? [])
            if let inner = clause["not"] { pending.append(inner) }
        }
        for clause in named {
            if let field = clause["fieldName"]?.stringValue, encrypted.contains(field) {
                throw CKError(.invalidArguments, "'\(recordType).\(field)' holds encrypted values, which cannot be queried or sorted")
            }
        }
    }
}

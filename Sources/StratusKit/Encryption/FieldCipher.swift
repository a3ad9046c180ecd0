import Crypto
import Foundation
import StratusModel

/// Seals one record value with AES-GCM under the user's key. The sealed form, stored by the
/// server as an ordinary BYTES value, is `SKE1` + the key's 8-byte fingerprint + nonce,
/// ciphertext and tag. The record's zone and name and the field's key are authenticated with
/// it, so a sealed value copied into another record or field does not open.
struct FieldCipher {
    static let magic = Data("SKE1".utf8)
    let key: SymmetricKey
    let fingerprint: Data

    init(key: Data) {
        self.key = SymmetricKey(data: key)
        fingerprint = Data(SHA256.hash(data: key).prefix(8))
    }

    /// Whether a stored BYTES value is a sealed value.
    static func isSealed(_ data: Data) -> Bool { data.count > 4 + 8 + 28 && data.prefix(4) == magic }

    /// The key fingerprint a sealed value names.
    static func fingerprint(of sealed: Data) -> Data { Data(sealed.dropFirst(4).prefix(8)) }

    func seal(_ value: RecordFieldValue, key field: String, recordID: CKRecord.ID) throws(CKError) -> Data {
        let plaintext = value.archiveJSON.serializedData
        do {
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: Self.associatedData(field, recordID))
            guard let combined = box.combined else { throw CKError(.internalError, "AES-GCM gave no sealed bytes") }
            return Self.magic + fingerprint + combined
        } catch let error as CKError {
            throw error
        } catch {
            throw CKError(.internalError, "could not encrypt '\(field)': \(error)")
        }
    }

    /// The value inside a sealed value; `nil` when it does not open with this key for this field.
    func open(_ sealed: Data, key field: String, recordID: CKRecord.ID) -> RecordFieldValue? {
        guard Self.isSealed(sealed), Self.fingerprint(of: sealed) == fingerprint,
            let box = try? AES.GCM.SealedBox(combined: sealed.dropFirst(12)),
            let plaintext = try? AES.GCM.open(box, using: key, authenticating: Self.associatedData(field, recordID)),
            let json = try? JSONValue.parse(plaintext)
        else { return nil }
        return RecordFieldValue(archiveJSON: json, zoneID: recordID.zoneID)
    }

    /// Zone name, record name and field key (the owner is left out: the same zone reads as
    /// `__defaultOwner__` to its owner and by user record name to others).
    static func associatedData(_ field: String, _ recordID: CKRecord.ID) -> Data {
        Data("\(recordID.zoneID.zoneName)\u{0}\(recordID.recordName)\u{0}\(field)".utf8)
    }
}

import Foundation

/// Something that stores record values by key: a record, or its `encryptedValues`.
public protocol CKRecordKeyValueSetting: AnyObject {
    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)?
    func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey)
    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? { get set }
    func allKeys() -> [CKRecord.FieldKey]
    func changedKeys() -> [CKRecord.FieldKey]
}

extension CKRecord: CKRecordKeyValueSetting {}

extension CKRecord {
    /// Values encrypted on the device with the signed-in user's key before they are sent, and
    /// decrypted when fetched; the server stores only ciphertext. They share the record's key
    /// space (a key holds a plain or an encrypted value) and cannot be queried or sorted on.
    /// See docs/stratuskit-api.md for the key and the threat model.
    public var encryptedValues: any CKRecordKeyValueSetting { EncryptedValues(record: self) }
}

/// The view of a record that `encryptedValues` returns.
final class EncryptedValues: CKRecordKeyValueSetting {
    private let record: CKRecord

    init(record: CKRecord) { self.record = record }

    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)? {
        record.encryptedKeys.contains(key) ? record.object(forKey: key) : nil
    }
    func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey) {
        record.setObject(object, forKey: key)
        if object == nil { record.encryptedKeys.remove(key) } else { record.encryptedKeys.insert(key) }
    }
    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }
    func allKeys() -> [CKRecord.FieldKey] { record.allKeys().filter(record.encryptedKeys.contains) }
    func changedKeys() -> [CKRecord.FieldKey] { record.changedKeys().filter(record.encryptedKeys.contains) }
}

extension CKRecordKeyValueSetting {
    /// Reads or writes a value as a specific type: `let note: String? = record.encryptedValues["note"]`.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        get { object(forKey: key) as? T }
        set { setObject(newValue, forKey: key) }
    }
}

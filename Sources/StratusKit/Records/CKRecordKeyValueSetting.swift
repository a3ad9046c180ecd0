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
    /// Values to encrypt. Stratus has no end-to-end encryption: these are the record's ordinary
    /// fields (stored by the server like any other), kept under the same keys so code that uses
    /// `encryptedValues` works unchanged.
    public var encryptedValues: any CKRecordKeyValueSetting { EncryptedValues(record: self) }
}

/// The view of a record that `encryptedValues` returns.
final class EncryptedValues: CKRecordKeyValueSetting {
    private let record: CKRecord

    init(record: CKRecord) { self.record = record }

    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)? { record.object(forKey: key) }
    func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey) { record.setObject(object, forKey: key) }
    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { record.object(forKey: key) }
        set { record.setObject(newValue, forKey: key) }
    }
    func allKeys() -> [CKRecord.FieldKey] { record.allKeys() }
    func changedKeys() -> [CKRecord.FieldKey] { record.changedKeys() }
}

extension CKRecordKeyValueSetting {
    /// Reads or writes a value as a specific type: `let note: String? = record.encryptedValues["note"]`.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        get { object(forKey: key) as? T }
        set { setObject(newValue, forKey: key) }
    }
}

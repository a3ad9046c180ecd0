import Foundation

extension CKRecord {
    /// The value stored under `key`, or `nil`.
    public func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValue)? {
        fields[key]?.object
    }

    /// Stores a value under `key`; `nil` removes it.
    public func setObject(_ object: (any CKRecordValue)?, forKey key: CKRecord.FieldKey) {
        guard let object else {
            setField(nil, forKey: key)
            return
        }
        guard let value = RecordFieldValue.from(object) else {
            preconditionFailure("CKRecord: a value of type \(type(of: object)) cannot be stored under '\(key)'")
        }
        setField(value, forKey: key)
    }

    /// Key-value coding: the value stored under `key`.
    public func value(forKey key: String) -> Any? { object(forKey: key) }

    /// Key-value coding: stores a value under `key`; `nil` removes it.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else {
            setField(nil, forKey: key)
            return
        }
        guard let field = RecordFieldValue.from(value) else {
            preconditionFailure("CKRecord: a value of type \(type(of: value)) cannot be stored under '\(key)'")
        }
        setField(field, forKey: key)
    }

    /// Reads or writes a field: `record["title"] = "Hello"`, `record["count"] as? Int`.
    public subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// Reads or writes a field as a specific type: `let title: String? = record["title"]`.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        get {
            guard let stored = fields[key] else { return nil }
            if let bridge = T.self as? any RecordValueBridge.Type,
                let value = bridge.fromRecordFieldValue(stored) as? T
            {
                return value
            }
            return stored.object as? T
        }
        set { setObject(newValue, forKey: key) }
    }

    func setField(_ value: RecordFieldValue?, forKey key: String) {
        if let value { fields[key] = value } else { fields[key] = nil }
        if !changedKeyList.contains(key) { changedKeyList.append(key) }
    }
}

/// Iterates over a record's keys and values, in key order.
public struct CKRecordKeyValueIterator: IteratorProtocol {
    private var pairs: IndexingIterator<[(CKRecord.FieldKey, any CKRecordValueProtocol)]>

    init(_ record: CKRecord) {
        pairs = record.allKeys().compactMap { key in record.object(forKey: key).map { (key, $0) } }.makeIterator()
    }

    public mutating func next() -> (CKRecord.FieldKey, any CKRecordValueProtocol)? { pairs.next() }
}

extension CKRecord: Sequence {
    public func makeIterator() -> CKRecordKeyValueIterator { CKRecordKeyValueIterator(self) }
}

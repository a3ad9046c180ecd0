import StratusModel

/// CloudKit-shaped access to a record inside the server (hooks, the console, tests): a field by
/// name and type, the user fields without the system keys kept among them, and `parent`/`share`.
extension RecordRow: RecordFieldReading {
    /// The record's user fields: its stored fields less the system keys (`parent`, `share`,
    /// a share's state) kept among them.
    public var userFields: [String: FieldValue] {
        fields.filter { !ReservedField.isReserved($0.key) }
    }

    /// A user field's value, whatever its type; `nil` when the record has no such field.
    public subscript(field name: String) -> FieldValue? {
        ReservedField.isReserved(name) ? nil : fields[name]
    }

    /// The record this one belongs to in a share hierarchy (CKRecord.parent).
    public var parent: ReferenceValue? {
        if case .reference(let value)? = fields[ReservedField.parent] { return value }
        return nil
    }

    /// The share record of a shared root (CKRecord.share).
    public var share: ReferenceValue? {
        if case .reference(let value)? = fields[ReservedField.share] { return value }
        return nil
    }
}

/// Typed reads of a record's user fields by name, for every record type the server hands to code
/// (`RecordRow`, the `SavingRecord` of a hook): a value of another type reads as `nil`.
public protocol RecordFieldReading {
    /// A user field's value, whatever its type; `nil` when the record has no such field.
    subscript(field name: String) -> FieldValue? { get }
}

extension RecordFieldReading {
    public func string(_ name: String) -> String? {
        if case .string(let value)? = self[field: name] { return value }
        return nil
    }

    public func int64(_ name: String) -> Int64? {
        if case .int64(let value)? = self[field: name] { return value }
        return nil
    }

    public func double(_ name: String) -> Double? {
        switch self[field: name] {
        case .double(let value)?: return value
        case .int64(let value)?: return Double(value)
        default: return nil
        }
    }

    /// A TIMESTAMP field, in milliseconds since 1970 as CloudKit sends it.
    public func timestampMilliseconds(_ name: String) -> Int64? {
        if case .timestamp(let value)? = self[field: name] { return value }
        return nil
    }

    public func reference(_ name: String) -> ReferenceValue? {
        if case .reference(let value)? = self[field: name] { return value }
        return nil
    }

    public func location(_ name: String) -> LocationValue? {
        if case .location(let value)? = self[field: name] { return value }
        return nil
    }

    public func asset(_ name: String) -> AssetValue? {
        if case .asset(let value)? = self[field: name] { return value }
        return nil
    }

    /// A list field's elements (any element type).
    public func list(_ name: String) -> [FieldValue]? {
        if case .list(_, let elements)? = self[field: name] { return elements }
        return nil
    }
}

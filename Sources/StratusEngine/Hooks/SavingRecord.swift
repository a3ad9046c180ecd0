import StratusModel

/// A record as a save will write it, handed to `beforeSave` hooks, which may change its fields.
/// For an update, `fields` is the stored record's fields with the request's changes applied;
/// for a create or a replace, the request's fields alone.
public struct SavingRecord: Sendable, RecordFieldReading {
    public let recordName: String
    public let recordType: String
    public let zoneName: String
    /// The stored record the save replaces, as it was read before the hook ran; `nil` for a new
    /// record.
    public let original: RecordRow?
    /// The user fields to be saved. A field removed here is removed from the record.
    public var fields: [String: FieldValue]

    public init(recordName: String, recordType: String, zoneName: String, original: RecordRow?, fields: [String: FieldValue]) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneName = zoneName
        self.original = original
        self.fields = fields
    }

    public var isNew: Bool { original == nil }

    /// A field's value, or `nil`; assigning `nil` removes the field.
    public subscript(field name: String) -> FieldValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }
}

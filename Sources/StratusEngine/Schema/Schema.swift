import StratusModel

/// The index options of docs/protocol.md §12: QUERYABLE (equality), SORTABLE (range and order),
/// SEARCHABLE (full-text tokens).
public struct IndexFlags: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let queryable = IndexFlags(rawValue: 1)
    public static let sortable = IndexFlags(rawValue: 2)
    public static let searchable = IndexFlags(rawValue: 4)

    public var names: [String] {
        var names: [String] = []
        if contains(.queryable) { names.append("QUERYABLE") }
        if contains(.sortable) { names.append("SORTABLE") }
        if contains(.searchable) { names.append("SEARCHABLE") }
        return names
    }
}

/// One field of a record type.
public struct FieldSchema: Sendable, Hashable {
    public var name: String
    public var type: FieldTypeDescriptor
    public var indexes: IndexFlags

    public init(name: String, type: FieldTypeDescriptor, indexes: IndexFlags = []) {
        self.name = name
        self.type = type
        self.indexes = indexes
    }
}

/// A composite index: equality on leading fields, then order by a trailing key.
///
/// CloudKit has no composite indexes; Stratus adds them so that a query such as
/// `genre == X ORDER BY rating DESC` reads exactly the rows it returns instead of sorting every
/// match. In development they are created from the queries the app runs; they travel to
/// production with the schema.
public struct CompoundIndex: Sendable, Hashable {
    /// Fields compared for equality, in index order (user field names or `___` system names).
    public var equalityFields: [String]
    /// The sort key (user field name or `___` system name).
    public var sortField: String

    public init(equalityFields: [String], sortField: String) {
        self.equalityFields = equalityFields
        self.sortField = sortField
    }

    public var name: String { (equalityFields + [sortField]).joined(separator: "+") }
}

/// A record type: its fields, index options on system fields, and composite indexes.
public struct RecordTypeSchema: Sendable, Hashable {
    public var name: String
    public var fields: [String: FieldSchema]
    /// Index options on system fields, keyed by `SystemFieldName`.
    public var systemIndexes: [SystemFieldName: IndexFlags]
    public var compoundIndexes: [CompoundIndex]

    public init(
        name: String, fields: [String: FieldSchema] = [:], systemIndexes: [SystemFieldName: IndexFlags] = [:],
        compoundIndexes: [CompoundIndex] = []
    ) {
        self.name = name
        self.fields = fields
        self.systemIndexes = systemIndexes
        self.compoundIndexes = compoundIndexes
    }
}

/// The schema of one container environment.
public struct Schema: Sendable, Hashable {
    public var recordTypes: [String: RecordTypeSchema]

    public init(recordTypes: [String: RecordTypeSchema] = [:]) {
        self.recordTypes = recordTypes
    }
}

/// Whether unknown types and fields are created on save (development) or refused (production).
public enum SchemaMode: Sendable {
    case justInTime
    case enforced

    public init(_ environment: DatabaseEnvironment) {
        self = environment == .development ? .justInTime : .enforced
    }
}

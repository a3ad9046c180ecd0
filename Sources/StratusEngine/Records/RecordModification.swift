import StratusModel

/// `operationType` of records/modify (docs/protocol.md §4.3).
public enum RecordOperationType: String, Sendable, CaseIterable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    var needsChangeTag: Bool { self == .update || self == .replace || self == .delete }
    var isDelete: Bool { self == .delete || self == .forceDelete }
    /// Unspecified fields are cleared (replace) instead of kept (update).
    var replacesFields: Bool { self == .replace || self == .forceReplace || self == .create }
    var createsWhenMissing: Bool { self == .create || self == .forceUpdate || self == .forceReplace }
}

/// records/modify as the engine takes it: operations on records of one zone, applied in one
/// transaction. Atomic batches (in a custom zone) write all or nothing.
public struct RecordModification: Sendable {
    /// One operation per record; no record twice.
    public var operations: [RecordOperation]
    public var zoneID: ZoneID
    /// All or nothing; the default zone is never atomic (as in CloudKit).
    public var atomic: Bool

    public init(operations: [RecordOperation], zoneID: ZoneID = .default, atomic: Bool = true) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
    }
}

/// One operation of a `RecordModification`.
public struct RecordOperation: Sendable {
    public var type: RecordOperationType
    public var recordName: String
    /// Required to create; otherwise, when given, it must match the stored record's.
    public var recordType: String?
    /// The tag last fetched: required by update, replace and delete.
    public var changeTag: String?
    /// The fields to set (`FieldInput.clear` removes one).
    public var fields: [String: FieldInput]
    /// The record's own zone, when it names one (it must be the modification's).
    public var zoneID: ZoneID?
    public var parent: ParentEdit
    /// Where the operation sits in the request (`operations[0]`), for error messages.
    public var path: String
    /// The share members, when the record is a share (`cloudkit.share`).
    package var share: ShareRequest?

    public init(
        _ type: RecordOperationType, recordName: String, recordType: String? = nil, changeTag: String? = nil,
        fields: [String: FieldInput] = [:], zoneID: ZoneID? = nil, parent: ParentEdit = .keep, path: String = "operation"
    ) {
        self.type = type
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.fields = fields
        self.zoneID = zoneID
        self.parent = parent
        self.path = path
    }
}

/// A field's value in a save, decoded once its type is known: the schema's declared type, or in
/// development the type the value itself carries (a new field).
public struct FieldInput: Sendable {
    public let path: String
    private let decoder: @Sendable (_ expected: FieldTypeDescriptor?) throws(WireError) -> FieldValue.Decoded

    /// - Parameter decoder: the value, as `expected` when the schema declares the field.
    public init(path: String, decoder: @escaping @Sendable (_ expected: FieldTypeDescriptor?) throws(WireError) -> FieldValue.Decoded) {
        self.path = path
        self.decoder = decoder
    }

    /// A typed value (from code inside the server): refused when the schema types the field otherwise.
    public static func value(_ value: FieldValue, path: String = "field") -> FieldInput {
        FieldInput(path: path) { expected throws(WireError) in
            .value(try expected.map { type throws(WireError) in try value.conforming(to: type, path: path) } ?? value)
        }
    }

    /// Removes the field.
    public static func clear(path: String = "field") -> FieldInput {
        FieldInput(path: path) { _ throws(WireError) in .clear }
    }

    public func decode(expected: FieldTypeDescriptor?) throws(WireError) -> FieldValue.Decoded {
        try decoder(expected)
    }
}

/// What a records/modify did: one result per operation, in request order.
public struct ModifiedRecords: Sendable {
    /// See `FetchedRecords.readScope`.
    public var readScope: RequestScope
    public var results: [Result<RecordWriteOutcome, CloudKitError>]
}

public enum RecordWriteOutcome: Sendable {
    /// The record as stored after the save.
    case saved(RecordRow)
    case deleted(zoneName: String, recordName: String)
}

/// An atomic batch that failed: nothing was written. The wire answers HTTP 400 with every
/// operation's error, the culprit's own and `ATOMIC_ERROR` for the others (docs/protocol.md §1.5).
public struct AtomicBatchFailure: Error, Sendable {
    /// Every operation's record, in request order.
    public let recordNames: [String]
    public let failedOperation: String
    public let error: CloudKitError
}

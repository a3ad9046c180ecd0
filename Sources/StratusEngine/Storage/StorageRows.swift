import StratusModel

/// A record as stored.
public struct RecordRow: Sendable, Hashable {
    public var zoneName: String
    public var recordName: String
    public var recordType: String
    public var changeTag: String
    public var created: RecordStamp
    public var modified: RecordStamp
    private var content: Content

    /// Typed fields, or the stored text they decode from when needed.
    private enum Content: Sendable {
        case typed([String: FieldValue])
        case stored(StoredFields)
    }

    public init(
        zoneName: String, recordName: String, recordType: String, changeTag: String,
        fields: [String: FieldValue], created: RecordStamp, modified: RecordStamp
    ) {
        self.init(
            zoneName: zoneName, recordName: recordName, recordType: recordType, changeTag: changeTag,
            content: .typed(fields), created: created, modified: modified)
    }

    /// A row read from storage, its fields still the stored text (see `StoredFields`).
    public init(
        zoneName: String, recordName: String, recordType: String, changeTag: String,
        storedFields: StoredFields, created: RecordStamp, modified: RecordStamp
    ) {
        self.init(
            zoneName: zoneName, recordName: recordName, recordType: recordType, changeTag: changeTag,
            content: .stored(storedFields), created: created, modified: modified)
    }

    private init(
        zoneName: String, recordName: String, recordType: String, changeTag: String,
        content: Content, created: RecordStamp, modified: RecordStamp
    ) {
        self.zoneName = zoneName
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.content = content
        self.created = created
        self.modified = modified
    }

    /// The typed fields (decoded from the stored text on first read). Setting them drops the
    /// stored text: it no longer says what the record holds.
    public var fields: [String: FieldValue] {
        get {
            switch content {
            case .typed(let fields): return fields
            case .stored(let stored): return stored.fields
            }
        }
        set { content = .typed(newValue) }
    }

    /// The stored text of the fields, while they are unchanged since the read.
    public var storedFields: StoredFields? {
        if case .stored(let stored) = content { return stored }
        return nil
    }

    public static func == (lhs: RecordRow, rhs: RecordRow) -> Bool {
        lhs.zoneName == rhs.zoneName && lhs.recordName == rhs.recordName && lhs.recordType == rhs.recordType
            && lhs.changeTag == rhs.changeTag && lhs.created == rhs.created && lhs.modified == rhs.modified
            && lhs.fields == rhs.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(zoneName)
        hasher.combine(recordName)
        hasher.combine(changeTag)
        hasher.combine(fields)
    }

    /// The fields as one JSON document (sorted keys, wire shapes): what storage keeps and what
    /// the record-size limit measures.
    public static func encodedFields(_ fields: [String: FieldValue]) -> String {
        JSONValue.object(fields.mapValues { $0.fieldJSON() }).serializedString
    }
}

/// A zone as stored.
public struct ZoneRow: Sendable, Hashable {
    public var zoneName: String
    /// The store's change sequence when the zone last changed; the basis of its sync token.
    public var changeSequence: Int64

    public init(zoneName: String, changeSequence: Int64) {
        self.zoneName = zoneName
        self.changeSequence = changeSequence
    }
}

/// A record that holds a reference with an action (DELETE_SELF or VALIDATE) to some target.
public struct ReferrerRow: Sendable, Hashable {
    public var zoneName: String
    public var recordName: String
    public var action: ReferenceAction

    public init(zoneName: String, recordName: String, action: ReferenceAction) {
        self.zoneName = zoneName
        self.recordName = recordName
        self.action = action
    }
}

/// One entry of a store's change log.
public struct ChangeRow: Sendable, Hashable {
    public enum Operation: String, Sendable {
        case save
        case delete
        case zoneCreate = "zone-create"
        case zoneDelete = "zone-delete"
    }

    public var sequence: Int64
    public var zoneName: String
    /// Empty for zone operations.
    public var recordName: String
    public var operation: Operation

    public init(sequence: Int64, zoneName: String, recordName: String, operation: Operation) {
        self.sequence = sequence
        self.zoneName = zoneName
        self.recordName = recordName
        self.operation = operation
    }
}

/// A container and its developer identity.
public struct ContainerRow: Sendable, Hashable {
    public var identifier: String
    public var developerRecordName: String

    public init(identifier: String, developerRecordName: String) {
        self.identifier = identifier
        self.developerRecordName = developerRecordName
    }
}

/// A user of a container.
public struct UserRow: Sendable, Hashable {
    public var container: String
    public var userRecordName: String
    public var name: String

    public init(container: String, userRecordName: String, name: String) {
        self.container = container
        self.userRecordName = userRecordName
        self.name = name
    }
}

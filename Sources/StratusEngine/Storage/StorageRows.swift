import StratusModel

/// A record as stored.
public struct RecordRow: Sendable, Hashable {
    public var zoneName: String
    public var recordName: String
    public var recordType: String
    public var changeTag: String
    public var fields: [String: FieldValue]
    public var created: RecordStamp
    public var modified: RecordStamp

    public init(zoneName: String, recordName: String, recordType: String, changeTag: String,
                fields: [String: FieldValue], created: RecordStamp, modified: RecordStamp) {
        self.zoneName = zoneName
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.fields = fields
        self.created = created
        self.modified = modified
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

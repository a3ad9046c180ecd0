import StratusModel

/// A record copied from another CloudKit Web Services endpoint by `stratus import`, with the
/// system fields the source gave it. Unlike a records/modify save, its `created` and `modified`
/// stamps are kept as they are, so apps that sort by creation date see the source's order.
public struct ImportedRecord: Sendable, Hashable {
    public var recordName: String
    public var recordType: String
    /// Every field, typed; asset values name blobs already stored in the target (checksum and size).
    public var fields: [String: FieldValue]
    /// The parent's record name, in the same zone.
    public var parent: String?
    public var created: RecordStamp
    public var modified: RecordStamp

    public init(
        recordName: String, recordType: String, fields: [String: FieldValue], parent: String? = nil, created: RecordStamp,
        modified: RecordStamp
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.parent = parent
        self.created = created
        self.modified = modified
    }
}

/// Records of one zone of one store, written in one transaction: a killed import leaves each
/// batch wholly written or not at all.
public struct ImportBatch: Sendable {
    public var store: StoreKey
    public var zoneName: String
    public var records: [ImportedRecord]

    public init(store: StoreKey, zoneName: String = ZoneID.defaultZoneName, records: [ImportedRecord]) {
        self.store = store
        self.zoneName = zoneName
        self.records = records
    }
}

/// What writing a batch did.
public struct ImportBatchOutcome: Sendable, Hashable {
    /// Records created or changed.
    public var written: Int
    /// Records already in the target with the same type, fields, parent and stamps: not touched,
    /// so re-running an import changes nothing.
    public var unchanged: Int
}

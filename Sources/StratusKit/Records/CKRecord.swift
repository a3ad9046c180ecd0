import Foundation

/// A dictionary of keys and values that the server stores, with system fields the server fills in.
///
/// `@unchecked Sendable` exactly as in Apple's SDK: a record is a mutable model object that the
/// caller must not mutate from two threads at once; the SDK itself only reads a record while an
/// operation that was given it is running, and hands out fresh records in results.
open class CKRecord: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The record type's name (a `String`).
    public typealias RecordType = String
    /// A field name (a `String`).
    public typealias FieldKey = String

    /// Record types the server defines itself.
    public enum SystemType {
        /// The type of user records.
        public static let userRecord: CKRecord.RecordType = "Users"
        /// The type of share records.
        public static let share: CKRecord.RecordType = "cloudkit.share"
    }

    /// Key names for system fields, for use in queries and sort descriptors.
    public enum SystemFieldKey {
        public static let recordID: CKRecord.FieldKey = "___recordID"
        public static let creationDate: CKRecord.FieldKey = "___createTime"
        public static let modificationDate: CKRecord.FieldKey = "___modTime"
        public static let creatorUserRecordID: CKRecord.FieldKey = "___createdBy"
        public static let lastModifiedUserRecordID: CKRecord.FieldKey = "___modifiedBy"
        public static let parent: CKRecord.FieldKey = "___parent"
        public static let share: CKRecord.FieldKey = "___share"
    }

    /// The record's identifier.
    public let recordID: CKRecord.ID
    /// The record's type.
    public let recordType: CKRecord.RecordType
    /// The server's version tag, `nil` until the record has been saved or fetched.
    public internal(set) var recordChangeTag: String?
    /// When the record was first saved.
    public internal(set) var creationDate: Date?
    /// When the record was last saved.
    public internal(set) var modificationDate: Date?
    /// Who first saved the record.
    public internal(set) var creatorUserRecordID: CKRecord.ID?
    /// Who last saved the record.
    public internal(set) var lastModifiedUserRecordID: CKRecord.ID?
    /// The share this record belongs to; set by the server.
    public internal(set) var share: CKRecord.Reference?
    /// The parent record, for sharing hierarchies.
    public var parent: CKRecord.Reference? {
        didSet { parentChanged = true }
    }

    var fields: [String: RecordFieldValue] = [:]
    /// Keys set since the record was created, fetched or saved, in the order first changed.
    var changedKeyList: [String] = []
    var parentChanged = false
    /// Keys whose values were set through `encryptedValues` (sent sealed, see Encryption/).
    var encryptedKeys: Set<String> = []

    /// Creates a record with a new random name in the default zone, or with the given ID.
    public init(recordType: CKRecord.RecordType, recordID: CKRecord.ID = CKRecord.ID()) {
        self.recordType = recordType
        self.recordID = recordID
        super.init()
    }

    /// Restores a record archived with `encodeSystemFields(with:)` or `encode(with:)`; `nil`
    /// when the archive does not hold a record.
    public required convenience init?(coder: NSCoder) {
        guard let (type, recordID) = CKRecord.decodeIdentity(from: coder) else { return nil }
        self.init(recordType: type, recordID: recordID)
        decodeArchive(from: coder)
    }

    /// Creates a record with a random name in the given zone.
    @available(swift, deprecated: 4.2, message: "Use init(recordType:recordID:) + CKRecord.ID(zoneID:) instead")
    public convenience init(recordType: CKRecord.RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: CKRecord.ID(zoneID: zoneID))
    }

    /// Sets the parent to the given record, with no delete action.
    public func setParent(_ parentRecord: CKRecord?) {
        parent = parentRecord.map { CKRecord.Reference(recordID: $0.recordID, action: .none) }
    }

    /// Sets the parent to the record with the given ID, with no delete action.
    public func setParent(_ parentRecordID: CKRecord.ID?) {
        parent = parentRecordID.map { CKRecord.Reference(recordID: $0, action: .none) }
    }

    /// Every key that has a value.
    public func allKeys() -> [CKRecord.FieldKey] { fields.keys.sorted() }

    /// The keys changed locally since the record was created, fetched or last saved.
    public func changedKeys() -> [CKRecord.FieldKey] { changedKeyList }

    /// Forgets local changes; called after the server accepted or returned the record.
    func clearChanges() {
        changedKeyList = []
        parentChanged = false
    }

    /// Copies every system field and every value from another instance of the same record.
    func adopt(systemFieldsOf other: CKRecord) {
        recordChangeTag = other.recordChangeTag
        creationDate = other.creationDate
        modificationDate = other.modificationDate
        creatorUserRecordID = other.creatorUserRecordID
        lastModifiedUserRecordID = other.lastModifiedUserRecordID
        share = other.share
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKRecord(recordType: recordType, recordID: recordID)
        copy.copyRecordState(from: self)
        return copy
    }

    /// Copies system fields, values and local changes from another instance of the same record.
    func copyRecordState(from other: CKRecord) {
        adopt(systemFieldsOf: other)
        parent = other.parent
        fields = other.fields
        changedKeyList = other.changedKeyList
        parentChanged = other.parentChanged
        encryptedKeys = other.encryptedKeys
    }

    open override var description: String {
        "<CKRecord: recordType=\(recordType), recordID=\(recordID.recordName):(\(recordID.zoneID.zoneName):\(recordID.zoneID.ownerName)), recordChangeTag=\(recordChangeTag ?? "nil"), values=\(fields.count)>"
    }
}

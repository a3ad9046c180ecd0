import Foundation

// The class is top-level because keyed archiving on Linux cannot name nested classes; apps use the nested name.
/// Identifies a record: its name and its zone. Compared by value.
public final class __CKRecordID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.

    /// The record's name, unique within its zone.
    public let recordName: String
    /// The zone the record lives in.
    public let zoneID: CKRecordZone.ID

    /// Creates a record ID; by default a random UUID name in the default zone.
    public init(recordName: String = UUID().uuidString, zoneID: CKRecordZone.ID = .default) {
        self.recordName = recordName
        self.zoneID = zoneID
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let name = coder.decodeIfPresent(NSString.self, forKey: "recordName") else { return nil }
        self.recordName = name as String
        self.zoneID = coder.decodeIfPresent(CKRecordZone.ID.self, forKey: "zoneID") ?? .default
        super.init()
    }

    public func encode(with coder: NSCoder) {
        coder.encode(recordName as NSString, forKey: "recordName")
        coder.encode(zoneID, forKey: "zoneID")
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecord.ID else { return false }
        return recordName == other.recordName && zoneID == other.zoneID
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(recordName)
        hasher.combine(zoneID.hash)
        return hasher.finalize()
    }

    public override var description: String {
        "<CKRecordID: recordName=\(recordName), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>"
    }
}

extension CKRecord {
    /// Identifies a record: its name and its zone. Compared by value.
    public typealias ID = __CKRecordID
}

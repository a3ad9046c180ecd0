import Foundation

extension CKRecord {
    /// What happens to the record holding a reference when its target is deleted.
    public enum ReferenceAction: UInt, Sendable, Hashable {
        /// Nothing.
        case none = 0
        /// The holder is deleted with the target.
        case deleteSelf = 1
    }

    /// A link from one record to another in the same zone.
    public typealias Reference = __CKReference
}

// The class is top-level because keyed archiving on Linux cannot name nested classes; apps use
// the nested name `CKRecord.Reference`.
public final class __CKReference: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.

    /// Deprecated name of ``CKRecord/ReferenceAction``.
    @available(*, deprecated, renamed: "CKRecord.ReferenceAction")
    public typealias Action = CKRecord.ReferenceAction

    /// The target record.
    public let recordID: CKRecord.ID
    /// The delete behaviour.
    public let action: CKRecord.ReferenceAction

    /// Creates a reference to the record with the given ID.
    public init(recordID: CKRecord.ID, action: CKRecord.ReferenceAction) {
        self.recordID = recordID
        self.action = action
        super.init()
    }

    /// Creates a reference to a record.
    public convenience init(record: CKRecord, action: CKRecord.ReferenceAction) {
        self.init(recordID: record.recordID, action: action)
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let recordID = coder.decodeIfPresent(CKRecord.ID.self, forKey: "recordID") else { return nil }
        self.recordID = recordID
        self.action = CKRecord.ReferenceAction(rawValue: UInt(coder.decodeInt64(forKey: "action"))) ?? .none
        super.init()
    }

    public func encode(with coder: NSCoder) {
        coder.encode(recordID, forKey: "recordID")
        coder.encode(Int64(action.rawValue), forKey: "action")
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecord.Reference else { return false }
        return recordID == other.recordID && action == other.action
    }

    public override var hash: Int { recordID.hash &+ Int(action.rawValue) }

    public override var description: String { "<CKReference: \(recordID.recordName) action=\(action)>" }
}

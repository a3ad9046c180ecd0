import Foundation

/// The record name of the current user in a zone owner field: "the caller".
public let CKCurrentUserDefaultName = "__defaultOwner__"

/// Deprecated spelling of ``CKCurrentUserDefaultName``.
@available(*, deprecated, renamed: "CKCurrentUserDefaultName")
public let CKOwnerDefaultName = CKCurrentUserDefaultName

/// The name of the default zone.
public let CKRecordZoneDefaultName = "_defaultZone"

// The class is top-level because keyed archiving on Linux cannot name nested classes; apps use the nested name.
/// Identifies a record zone: its name and its owner. Compared by value.
public final class __CKRecordZoneID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init (all stored properties are `let`); declared
    // unchecked only because NSObject subclasses cannot be checked, as in Apple's SDK.

    /// The name of the default zone, `_defaultZone`.
    public static let defaultZoneName = CKRecordZoneDefaultName
    /// The default zone of the current user.
    public static let `default` = CKRecordZone.ID()

    /// The zone's name.
    public let zoneName: String
    /// The record name of the zone's owner; ``CKCurrentUserDefaultName`` for the caller.
    public let ownerName: String

    /// Creates a zone ID. The defaults name the caller's default zone.
    public init(zoneName: String = CKRecordZone.ID.defaultZoneName, ownerName: String = CKCurrentUserDefaultName) {
        self.zoneName = zoneName
        self.ownerName = ownerName
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let zoneName = coder.decodeIfPresent(NSString.self, forKey: "zoneName") else { return nil }
        self.zoneName = zoneName as String
        self.ownerName = (coder.decodeIfPresent(NSString.self, forKey: "ownerName") as String?) ?? CKCurrentUserDefaultName
        super.init()
    }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneName as NSString, forKey: "zoneName")
        coder.encode(ownerName as NSString, forKey: "ownerName")
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZone.ID else { return false }
        return zoneName == other.zoneName && ownerName == other.ownerName
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(zoneName)
        hasher.combine(ownerName)
        return hasher.finalize()
    }

    public override var description: String { "<CKRecordZoneID: zoneName=\(zoneName), ownerName=\(ownerName)>" }
}

extension CKRecordZone {
    /// Identifies a record zone: its name and its owner. Compared by value.
    public typealias ID = __CKRecordZoneID
}

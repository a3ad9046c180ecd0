import Foundation

/// A record zone: a named group of records in a database.
public class CKRecordZone: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: as in Apple's SDK; a zone is configured before it is handed to an
    // operation and not mutated concurrently.

    /// What a zone can do.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The zone keeps a change history.
        public static let fetchChanges = Capabilities(rawValue: 1)
        /// Batches in the zone succeed or fail as a whole.
        public static let atomic = Capabilities(rawValue: 2)
        /// Records in the zone can be shared.
        public static let sharing = Capabilities(rawValue: 4)
        /// The whole zone can be shared.
        public static let zoneWideSharing = Capabilities(rawValue: 8)
    }

    /// The zone's identifier.
    public let zoneID: CKRecordZone.ID
    /// The zone's capabilities. Custom zones have all of them; the default zone none.
    public internal(set) var capabilities: Capabilities
    /// The share of a zone-wide shared zone.
    public internal(set) var share: CKRecord.Reference?
    /// The server's change-history point for the zone, when it sent one.
    var serverSyncToken: String?
    /// How encrypted values in the zone are keyed (see ``EncryptionScope``).
    public var encryptionScope: EncryptionScope = .perRecord

    /// Creates a zone owned by the current user.
    public convenience init(zoneName: String) {
        self.init(zoneID: CKRecordZone.ID(zoneName: zoneName))
    }

    /// Creates a zone with the given identifier.
    public init(zoneID: CKRecordZone.ID) {
        self.zoneID = zoneID
        self.capabilities = zoneID.zoneName == CKRecordZone.ID.defaultZoneName ? [] : [.fetchChanges, .atomic, .sharing]
        super.init()
    }

    /// The current user's default zone.
    public class func `default`() -> CKRecordZone { CKRecordZone(zoneID: .default) }

    public class var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let zoneID = coder.decodeIfPresent(CKRecordZone.ID.self, forKey: "zoneID") else { return nil }
        self.zoneID = zoneID
        self.capabilities = Capabilities(rawValue: UInt(coder.decodeInt64(forKey: "capabilities")))
        super.init()
    }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneID, forKey: "zoneID")
        coder.encode(Int64(capabilities.rawValue), forKey: "capabilities")
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKRecordZone(zoneID: zoneID)
        copy.capabilities = capabilities
        copy.share = share
        copy.serverSyncToken = serverSyncToken
        return copy
    }

    public override var description: String { "<CKRecordZone: \(zoneID.zoneName) capabilities=\(capabilities.rawValue)>" }
}

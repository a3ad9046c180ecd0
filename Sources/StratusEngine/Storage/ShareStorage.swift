import StratusModel

/// What a participant may do with a share's records (`publicPermission` too).
public enum SharePermission: String, Sendable, Hashable, CaseIterable {
    case none = "NONE"
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"
}

/// How a participant came to the share.
public enum ParticipantRole: String, Sendable, Hashable, CaseIterable {
    case owner = "OWNER"
    /// Added by the owner.
    case user = "USER"
    /// Joined through the URL of a share with a public permission.
    case publicUser = "PUBLIC_USER"
}

public enum AcceptanceStatus: String, Sendable, Hashable, CaseIterable {
    case invited = "INVITED"
    case accepted = "ACCEPTED"
    case removed = "REMOVED"
}

/// One participant of a share other than its owner (the owner is implied by the share's store).
/// A participant is named by a user record name, an email address or a phone number; an address
/// gains its user record name when that user accepts.
public struct ShareParticipant: Sendable, Hashable {
    public var participantID: String
    public var userRecordName: String?
    public var email: String?
    public var phone: String?
    public var role: ParticipantRole
    public var permission: SharePermission
    public var status: AcceptanceStatus
    public var addedAt: Int64

    public init(
        participantID: String, userRecordName: String?, email: String?, phone: String?, role: ParticipantRole,
        permission: SharePermission, status: AcceptanceStatus, addedAt: Int64
    ) {
        self.participantID = participantID
        self.userRecordName = userRecordName
        self.email = email
        self.phone = phone
        self.role = role
        self.permission = permission
        self.status = status
        self.addedAt = addedAt
    }
}

/// A share as stored: its record in the owner's private database, what it covers, and its
/// participants.
public struct ShareRow: Sendable, Hashable {
    /// The owner's private store.
    public var store: StoreKey
    public var zoneName: String
    /// The share record's name (`cloudkit.zoneshare` for a zone-wide share).
    public var recordName: String
    /// The hierarchy's root; `nil` for a zone-wide share.
    public var rootRecordName: String?
    public var shortGUID: String
    public var publicPermission: SharePermission
    public var participants: [ShareParticipant]

    public init(
        store: StoreKey, zoneName: String, recordName: String, rootRecordName: String?, shortGUID: String,
        publicPermission: SharePermission, participants: [ShareParticipant]
    ) {
        self.store = store
        self.zoneName = zoneName
        self.recordName = recordName
        self.rootRecordName = rootRecordName
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.participants = participants
    }

    public var owner: String { store.owner }
    public var isZoneWide: Bool { rootRecordName == nil }
}

/// Reads of shares.
public protocol ShareStorageReader: Sendable {
    /// The share with this short GUID, in any container.
    func share(shortGUID: String) async throws -> ShareRow?
    /// The shares in one zone of a private store.
    func shares(_ store: StoreKey, zoneName: String) async throws -> [ShareRow]
    /// The shares of a container environment in which `userRecordName` is an accepted participant.
    func acceptedShares(container: String, environment: DatabaseEnvironment, userRecordName: String) async throws -> [ShareRow]
    /// The zones of a private store that a zone-wide share covers.
    func zonesSharedWhole(_ store: StoreKey) async throws -> Set<String>
}

/// Writes of shares (always together with the share record, in the same transaction).
public protocol ShareStorageWriter: ShareStorageReader {
    /// Inserts or replaces the share and its whole participant list.
    func saveShare(_ share: ShareRow) async throws
    func deleteShare(shortGUID: String) async throws
}

import StratusModel

/// Where a record page of `UserDataStorageReader.recordPage` resumes: after this zone and name.
public struct RecordPosition: Sendable, Hashable {
    public var zoneName: String
    public var recordName: String

    public init(zoneName: String, recordName: String) {
        self.zoneName = zoneName
        self.recordName = recordName
    }
}

/// A user's place in someone else's share (or their own, as its owner's participant list names them).
public struct ShareParticipation: Sendable, Hashable {
    public var shortGUID: String
    /// The share record's store (its owner's private database).
    public var store: StoreKey
    public var zoneName: String
    public var recordName: String
    public var role: ParticipantRole
    public var permission: SharePermission
    public var status: AcceptanceStatus

    public init(
        shortGUID: String, store: StoreKey, zoneName: String, recordName: String, role: ParticipantRole,
        permission: SharePermission, status: AcceptanceStatus
    ) {
        self.shortGUID = shortGUID
        self.store = store
        self.zoneName = zoneName
        self.recordName = recordName
        self.role = role
        self.permission = permission
        self.status = status
    }
}

/// What `stratus user export` reads and `stratus user delete` erases of one user of a container.
public protocol UserDataStorageReader: Sendable {
    /// Users, in any container, whose record name is `recordName` or whose (lowercased) email is `email`.
    func userAccounts(recordName: String, email: String) async throws -> [UserAccount]
    /// The user's private databases that hold anything (either environment).
    func privateStores(container: String, userRecordName: String) async throws -> [StoreKey]
    /// Records of `store` ordered by zone and name, after `position`, at most `limit`; only those
    /// `createdBy` made when it is given.
    func recordPage(_ store: StoreKey, createdBy: String?, after position: RecordPosition?, limit: Int) async throws -> [RecordRow]
    /// Every subscription the user made in the container, or that lives in their private database.
    func subscriptions(container: String, userRecordName: String) async throws -> [SubscriptionRow]
    /// The user's entries in participant lists of the container's shares.
    func shareParticipations(container: String, userRecordName: String) async throws -> [ShareParticipation]
}

/// Erasure of one user's rows. Each call runs inside the caller's write transaction, so a
/// whole erasure commits together or not at all.
public protocol UserDataStorageWriter: UserDataStorageReader {
    /// Removes a store whole: records, their side rows, zones, change log, shares. Returns the records removed.
    func eraseStore(_ store: StoreKey) async throws -> Int
    /// Removes the user's account and everything keyed by them (web auth tokens, push tokens with
    /// their queued pushes and courier frames, subscriptions, role memberships, share
    /// participations). Returns how many rows of each kind went.
    func eraseAccount(container: String, userRecordName: String) async throws -> UserErasureCounts
    /// Marks those of `checksums` that no record references any more as being collected (see
    /// `markCollectableBlobs`) and returns them.
    func markUnreferencedBlobs(_ checksums: [String]) async throws -> [String]
}

/// Rows `eraseAccount` removed, by kind.
public struct UserErasureCounts: Sendable, Hashable {
    public var accounts = 0
    public var webAuthTokens = 0
    public var pushTokens = 0
    public var queuedPushes = 0
    public var courierFrames = 0
    public var subscriptions = 0
    public var roleMemberships = 0
    public var shareParticipations = 0

    public init() {}
}

import Crypto
import Foundation
import Logging
import StratusModel
import Synchronization

/// CloudKit semantics over a `RecordStorage`: what each CKWS operation does, independent of HTTP
/// and of the database underneath.
public final class Engine: Sendable {
    public let storage: any RecordStorage
    public let logger: Logger
    /// Signs continuation markers, sync tokens, asset URLs and receipts; replaced when a
    /// rotation is heard of (`reloadSigningKeys`).
    let keyring: Mutex<SigningKeys>
    /// Where `reloadSigningKeys` reads; nil: the keys given at start are kept.
    let signingKeySource: (any SigningKeySource)?
    let schemaCache = Mutex<[String: (schema: Schema, loaded: Date)]>([:])
    public let limits: EngineLimits
    /// Outlets and courier wake-ups of subscription notifications.
    public let notifications = NotificationHub()
    /// This process among the instances on one database (job leases name it).
    public let instanceID = UUID().uuidString
    /// Background jobs whose lease this instance held at its last check (for the log line when
    /// that changes).
    let heldJobs = Mutex<Set<String>>([])
    /// API token digest → its container and settings.
    let apiTokenCache = CredentialCache<(ContainerRow, APITokenRow)>()
    /// "container|web auth token" → user, for operator tokens only: sign-in tokens rotate and
    /// renew their session in the database on every request.
    let webAuthCache = CredentialCache<UserRow>()
    /// "container|environment" → record type grants.
    let grantsCache = CredentialCache<[GrantRow]>(lifetime: 2)
    /// "container|environment|user" → the user's assigned roles.
    let rolesCache = CredentialCache<Set<String>>()
    /// Container → its webhooks, for the writes that queue their deliveries.
    let webhookCache = CredentialCache<[WebhookRow]>(lifetime: 2)
    /// Each store's subscriptions, for the fan-out after writes.
    let subscriptionCache = SubscriptionCache()
    /// Whether a sign-in's replaced web auth tokens keep working for the session.
    public let webAuthTokenPolicy: WebAuthTokenPolicy
    /// Server-side logic run around record writes (none unless an app registers some).
    public let hooks: RecordHooks

    /// - Parameters:
    ///   - signingKeys: sign and verify continuation markers, sync tokens and asset URLs; keep
    ///     them stable across restarts (the data folder or the database holds them) so what was
    ///     handed out stays valid.
    ///   - signingKeySource: where a rotation is read from (`reloadSigningKeys`).
    public init(
        storage: any RecordStorage, signingKeys: SigningKeys, signingKeySource: (any SigningKeySource)? = nil,
        limits: EngineLimits = EngineLimits(), webAuthTokenPolicy: WebAuthTokenPolicy = .session, hooks: RecordHooks = RecordHooks(),
        logger: Logger
    ) {
        self.storage = storage
        self.hooks = hooks
        self.keyring = Mutex(signingKeys)
        self.signingKeySource = signingKeySource
        self.limits = limits
        self.webAuthTokenPolicy = webAuthTokenPolicy
        self.logger = logger
    }

    /// An engine whose one secret never rotates.
    public convenience init(
        storage: any RecordStorage, secret: [UInt8], limits: EngineLimits = EngineLimits(),
        webAuthTokenPolicy: WebAuthTokenPolicy = .session, hooks: RecordHooks = RecordHooks(), logger: Logger
    ) {
        self.init(
            storage: storage, signingKeys: SigningKeys(current: secret), limits: limits, webAuthTokenPolicy: webAuthTokenPolicy, hooks: hooks,
            logger: logger)
    }
}

/// The protocol's size limits (docs/protocol.md §11).
public struct EngineLimits: Sendable {
    public var maximumOperationsPerRequest = 200
    public var maximumResultsPerResponse = 200
    public var maximumRecordBytes = 1_000_000
    /// Records a single delete may remove through DELETE_SELF cascades.
    public var maximumCascade = 10_000
    /// Filters one query may have, and values one IN or LIST_CONTAINS_ANY/ALL filter may list:
    /// past these, a query costs the database more than any page is worth.
    public var maximumQueryFilters = 50
    public var maximumQueryFilterValues = 1_000
    /// Notifications kept per push token; beyond it the oldest are dropped.
    public var maximumQueuedNotifications = 1_000
    /// How long a queued notification waits for its client before it is dropped.
    public var notificationRetentionSeconds: Int64 = 7 * 24 * 3600
    /// Largest asset file accepted (docs/protocol.md §11: 50 MB).
    public var maximumAssetBytes: Int64 = 50 * 1024 * 1024
    /// Asset bytes the public database of one container environment may reference; `nil`: no limit.
    public var publicAssetQuotaBytes: Int64?
    /// Asset bytes one user's private database may reference; `nil`: no limit.
    public var privateAssetQuotaBytes: Int64?
    /// How long an upload URL from assets/upload accepts bytes (docs/protocol.md §8: 15 minutes).
    public var uploadURLLifetimeSeconds: Int64 = 15 * 60
    /// How long a receipt may be attached to a record after its upload finished.
    public var receiptLifetimeSeconds: Int64 = 60 * 60
    /// How long a `downloadURL` in a fetched record works; fetch the record again for a new one.
    public var downloadURLLifetimeSeconds: Int64 = 60 * 60

    public init() {}
}

/// SHA-256 hex digest: how tokens are stored and looked up, so a copy of the database does not
/// hold usable credentials.
public func secretDigest(_ secret: String) -> String {
    hexString(SHA256.hash(data: Data(secret.utf8)))
}

/// Lowercase hex of bytes. (`String(format:)` per byte showed up in request profiles.)
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

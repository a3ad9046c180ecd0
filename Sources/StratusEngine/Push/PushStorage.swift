/// Where a registered push token is delivered beyond the web courier: an Apple device (APNs) or a
/// browser's push service (Web Push). Keyed by the push token's digest.
public enum PushAddress: Sendable, Hashable {
    /// An APNs device token (hex) and the APNs environment it was issued in.
    case apns(deviceToken: String, environment: String)
    /// A browser push subscription: the push service endpoint, the browser's P-256 key
    /// (`p256dh`, base64url) and its authentication secret (`auth`, base64url).
    case webPush(endpoint: String, p256dh: String, auth: String)

    public var transport: String {
        switch self {
        case .apns: "apns"
        case .webPush: "webpush"
        }
    }
}

/// A push provider's credentials of one container environment, as `stratus push` stored them.
/// `settings` is the provider's configuration as JSON text (see `APNsSettings`, `VAPIDSettings`).
public struct PushCredentialRow: Sendable, Hashable {
    public var container: String
    public var environment: DatabaseEnvironment
    /// `apns` or `vapid`.
    public var provider: String
    public var settings: String

    public init(container: String, environment: DatabaseEnvironment, provider: String, settings: String) {
        self.container = container
        self.environment = environment
        self.provider = provider
        self.settings = settings
    }
}

/// One queued push: a notification for one token, waiting for the provider to accept it.
public struct PushDeliveryRow: Sendable, Hashable {
    public var id: Int64
    public var tokenDigest: String
    public var container: String
    public var environment: DatabaseEnvironment
    public var subscriptionID: String
    public var address: PushAddress
    /// The notification as the courier sends it (`aps` and `ck`), JSON text.
    public var payload: String
    public var createdMilliseconds: Int64
    /// Past this the push is dropped with a recorded reason instead of sent.
    public var expiresMilliseconds: Int64
    public var attempts: Int

    public init(
        id: Int64, tokenDigest: String, container: String, environment: DatabaseEnvironment, subscriptionID: String,
        address: PushAddress, payload: String, createdMilliseconds: Int64, expiresMilliseconds: Int64, attempts: Int
    ) {
        self.id = id
        self.tokenDigest = tokenDigest
        self.container = container
        self.environment = environment
        self.subscriptionID = subscriptionID
        self.address = address
        self.payload = payload
        self.createdMilliseconds = createdMilliseconds
        self.expiresMilliseconds = expiresMilliseconds
        self.attempts = attempts
    }
}

/// A push that was given up on, and why (expired, token removed, refused by the provider).
public struct PushDropRow: Sendable, Hashable {
    public var tokenDigest: String
    public var subscriptionID: String
    public var reason: String
    public var atMilliseconds: Int64

    public init(tokenDigest: String, subscriptionID: String, reason: String, atMilliseconds: Int64) {
        self.tokenDigest = tokenDigest
        self.subscriptionID = subscriptionID
        self.reason = reason
        self.atMilliseconds = atMilliseconds
    }
}

/// Reads of push addresses, provider credentials and the push queue.
public protocol PushStorageReader: Sendable {
    func pushAddresses(digests: [String]) async throws -> [String: PushAddress]
    func pushCredential(container: String, environment: DatabaseEnvironment, provider: String) async throws -> PushCredentialRow?
    /// Whether a push is due and not leased: a read, so an idle queue costs no write transaction.
    func hasDuePush(nowMilliseconds: Int64) async throws -> Bool
    /// Pushes waiting in the queue (claimed or not).
    func pendingPushCount() async throws -> Int
    /// The most recent drops, newest first.
    func pushDrops(limit: Int) async throws -> [PushDropRow]
}

/// Writes of push addresses, credentials and the push queue. Queue rows are claimed with a lease
/// so that several instances on one database share the work without sending a push twice.
public protocol PushStorageWriter: PushStorageReader {
    func savePushAddress(digest: String, address: PushAddress) async throws
    func savePushCredential(_ credential: PushCredentialRow) async throws
    func enqueuePush(
        tokenDigest: String, container: String, environment: DatabaseEnvironment, subscriptionID: String,
        payload: String, nowMilliseconds: Int64, expiresMilliseconds: Int64) async throws
    /// Leases up to `limit` due pushes to `holder` until `leaseUntil`: at most one per token, none
    /// of the tokens in `excludingTokens` (already in flight here), oldest due first.
    func claimPushes(
        holder: String, nowMilliseconds: Int64, leaseUntil: Int64, limit: Int,
        excludingTokens: [String]
    ) async throws -> [PushDeliveryRow]
    /// Releases every lease (a single server starting: leases of its previous run are dead).
    func releasePushLeases() async throws
    /// Removes a push the provider accepted. Returns false when this holder's lease was lost.
    func completePush(id: Int64, holder: String) async throws -> Bool
    /// Releases a push to be tried again at `nextAttempt`, and holds back the token's other
    /// pushes until then too (a failing token waits as a whole; other tokens go on).
    func retryPush(id: Int64, holder: String, tokenDigest: String, nextAttemptMilliseconds: Int64, error: String) async throws
    /// Removes a push and records why.
    func dropPush(id: Int64, drop: PushDropRow) async throws
    /// Removes a token the provider no longer knows: its address, its registration and its
    /// queued pushes (each recorded as dropped with `reason`). Returns how many pushes went.
    func removePushToken(digest: String, reason: String, nowMilliseconds: Int64) async throws -> Int
}

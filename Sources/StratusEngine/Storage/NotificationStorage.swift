import StratusModel

/// A subscription as stored: who made it, in which store, and its dictionary as the client sent
/// it (normalized: defaults filled in, unknown `notificationInfo` keys kept).
public struct SubscriptionRow: Sendable, Hashable {
    public var store: StoreKey
    /// The user (or the container's developer identity) the subscription belongs to.
    public var userRecordName: String
    public var subscriptionID: String
    public var definition: JSONValue

    public init(store: StoreKey, userRecordName: String, subscriptionID: String, definition: JSONValue) {
        self.store = store
        self.userRecordName = userRecordName
        self.subscriptionID = subscriptionID
        self.definition = definition
    }
}

/// A push token: made by `tokens/create` (web courier) or handed in by `tokens/register` (an
/// APNs device token). Stored by the SHA-256 digest of its courier key.
public struct PushTokenRow: Sendable, Hashable {
    public var digest: String
    public var container: String
    public var environment: DatabaseEnvironment
    public var userRecordName: String
    /// `development` or `production`, as the client asked.
    public var apnsEnvironment: String
    /// The original token text (base64), kept so an APNs outlet could address the device.
    public var apnsToken: String
    /// Only registered tokens receive frames.
    public var registered: Bool

    public init(
        digest: String, container: String, environment: DatabaseEnvironment, userRecordName: String,
        apnsEnvironment: String, apnsToken: String, registered: Bool
    ) {
        self.digest = digest
        self.container = container
        self.environment = environment
        self.userRecordName = userRecordName
        self.apnsEnvironment = apnsEnvironment
        self.apnsToken = apnsToken
        self.registered = registered
    }
}

/// Reads of subscriptions and push tokens.
/// Push delivery's tables (`PushStorageReader`) come with it: a push is queued beside its frame.
public protocol NotificationStorageReader: PushStorageReader {
    /// The subscriptions of a store; of one user only when `userRecordName` is set.
    func subscriptions(_ store: StoreKey, userRecordName: String?) async throws -> [SubscriptionRow]
    func pushToken(digest: String) async throws -> PushTokenRow?
    /// The registered tokens of one user of a container environment.
    func registeredPushTokens(container: String, environment: DatabaseEnvironment, userRecordName: String) async throws -> [PushTokenRow]
    /// The oldest frame of a token written at or after `notBefore`, left in the queue.
    func oldestFrame(tokenDigest: String, notBefore: Int64) async throws -> CourierFrame?
}

/// A queued notification frame: its queue position and its JSON text.
public struct CourierFrame: Sendable, Equatable {
    public let id: Int64
    public let body: String

    public init(id: Int64, body: String) {
        self.id = id
        self.body = body
    }
}

/// Writes of subscriptions, push tokens and their frame queues.
public protocol NotificationStorageWriter: NotificationStorageReader, PushStorageWriter {
    /// Inserts or replaces a subscription (keyed by store, user and ID).
    func saveSubscription(_ subscription: SubscriptionRow) async throws
    /// Returns whether it existed.
    func deleteSubscription(_ store: StoreKey, userRecordName: String, subscriptionID: String) async throws -> Bool
    /// Inserts or replaces a token.
    func savePushToken(_ token: PushTokenRow) async throws
    /// Appends a frame to a token's queue, then drops the oldest frames beyond `keep`.
    func enqueueFrame(tokenDigest: String, body: String, now: Int64, keep: Int) async throws
    /// Removes and returns the oldest frame of a token written at or after `notBefore`
    /// (older ones are past retention and are dropped).
    func takeFrame(tokenDigest: String, notBefore: Int64) async throws -> String?
    /// Removes one frame of a token (after it was delivered).
    func deleteFrame(tokenDigest: String, id: Int64) async throws
}

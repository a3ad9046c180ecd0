/// A webhook: where a container's record changes are POSTed, and which ones (server-logic.md).
public struct WebhookRow: Sendable, Hashable {
    public var id: String
    public var container: String
    /// `nil`: both environments.
    public var environment: DatabaseEnvironment?
    public var url: String
    /// Signs each delivery (HMAC-SHA256); shown once, when the webhook is added.
    public var secret: String
    /// Empty: every record type.
    public var recordTypes: [String]
    public var events: Set<RecordChangeKind>
    /// The databases whose changes are sent. Private and shared data goes only to a webhook
    /// added with `privateData`.
    public var databases: Set<DatabaseScope>
    public var createdMilliseconds: Int64

    public init(
        id: String, container: String, environment: DatabaseEnvironment?, url: String, secret: String, recordTypes: [String],
        events: Set<RecordChangeKind>, databases: Set<DatabaseScope>, createdMilliseconds: Int64
    ) {
        self.id = id
        self.container = container
        self.environment = environment
        self.url = url
        self.secret = secret
        self.recordTypes = recordTypes
        self.events = events
        self.databases = databases
        self.createdMilliseconds = createdMilliseconds
    }

    /// The outbox's name for this webhook's events.
    public var hookName: String { Self.hookPrefix + id }
    public static let hookPrefix = "webhook:"

    func matches(_ kind: RecordChangeKind, recordType: String, environment: DatabaseEnvironment, database: DatabaseScope) -> Bool {
        events.contains(kind) && databases.contains(database) && (self.environment ?? environment) == environment
            && (recordTypes.isEmpty || recordTypes.contains(recordType))
    }
}

/// Reads of the webhooks operators added.
public protocol WebhookStorageReader: Sendable {
    /// A container's webhooks; every container's when `container` is nil.
    func webhooks(container: String?) async throws -> [WebhookRow]
    func webhook(id: String) async throws -> WebhookRow?
}

public protocol WebhookStorageWriter: WebhookStorageReader {
    func saveWebhook(_ webhook: WebhookRow) async throws
    /// Removes a webhook and its queued deliveries; false when there was none.
    func removeWebhook(id: String) async throws -> Bool
    /// Runs a failed event again (a webhook delivery or an after hook) from now; false when no
    /// failed event has that id.
    func retryFailedHookEvent(id: Int64, nowMilliseconds: Int64) async throws -> Bool
}

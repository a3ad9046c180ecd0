import Foundation

/// A change that other instances on the same database must hear about at once rather than when
/// their caches expire: a revoked credential, a changed subscription or schema, frames queued for
/// a courier that may be waiting on another instance. Storage that serves several instances
/// broadcasts them (`RecordStorage.announce`); each instance applies what it hears
/// (`Engine.apply`), its own announcements included.
public enum FleetEvent: Sendable, Hashable {
    /// API tokens, web auth tokens, keys, roles or grants changed.
    case credentialsChanged
    case subscriptionsChanged(StoreKey)
    case schemaChanged(container: String, environment: DatabaseEnvironment)
    case framesQueued(tokenDigest: String)
    /// `stratus secret rotate` made a new signing secret: reread it.
    case signingKeysChanged
    /// Events may have been missed (the listener reconnected): forget every cache, wake every
    /// waiting courier.
    case missed

    private static let separator: Character = "\u{1F}"

    /// The event as one line of text (the notification payload).
    public var payload: String {
        let parts: [String]
        switch self {
        case .credentialsChanged: parts = ["credentials"]
        case .subscriptionsChanged(let store): parts = ["subscriptions", store.container, store.environment.rawValue, store.scope.rawValue, store.owner]
        case .schemaChanged(let container, let environment): parts = ["schema", container, environment.rawValue]
        case .framesQueued(let digest): parts = ["frames", digest]
        case .signingKeysChanged: parts = ["signing-keys"]
        case .missed: parts = ["missed"]
        }
        return parts.joined(separator: String(FleetEvent.separator))
    }

    /// Parses `payload`; text from anything else is nil (and ignored).
    public init?(payload: String) {
        let parts = payload.split(separator: FleetEvent.separator, omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("credentials", 1): self = .credentialsChanged
        case ("subscriptions", 5):
            guard let environment = DatabaseEnvironment(rawValue: parts[2]), let scope = DatabaseScope(rawValue: parts[3]) else { return nil }
            self = .subscriptionsChanged(StoreKey(container: parts[1], environment: environment, scope: scope, owner: parts[4]))
        case ("schema", 3):
            guard let environment = DatabaseEnvironment(rawValue: parts[2]) else { return nil }
            self = .schemaChanged(container: parts[1], environment: environment)
        case ("frames", 2): self = .framesQueued(tokenDigest: parts[1])
        case ("signing-keys", 1): self = .signingKeysChanged
        case ("missed", 1): self = .missed
        default: return nil
        }
    }
}

extension Engine {
    /// Applies an event heard from the fleet (or from this instance).
    public func apply(_ event: FleetEvent) {
        switch event {
        case .credentialsChanged: clearCredentialCaches()
        case .subscriptionsChanged(let store): subscriptionCache.forget(store)
        case .schemaChanged(let container, let environment): invalidateSchema(container: container, environment: environment)
        case .framesQueued(let digest): notifications.wake(digest)
        case .signingKeysChanged: Task { await reloadSigningKeys() }
        case .missed:
            Task { await reloadSigningKeys() }
            clearCredentialCaches()
            subscriptionCache.forgetAll()
            schemaCache.withLock { $0.removeAll() }
            notifications.wakeAll()
        }
    }

    /// Tells the other instances (a no-op on storage that serves one). A failure is logged: the
    /// caches it would have cleared still expire within seconds.
    func announce(_ events: [FleetEvent]) async {
        guard !events.isEmpty else { return }
        do {
            try await storage.announce(events)
        } catch {
            logger.warning("could not tell other instances about \(events.map(\.payload)): \(error); their caches expire within seconds")
        }
    }
}

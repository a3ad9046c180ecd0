import Foundation
import StratusModel

/// A committed record change, with the record's state after a save or its last state before a
/// delete (what a query subscription's filters are evaluated against).
struct RecordEvent: Sendable {
    var record: RecordRow
    var kind: RecordChangeKind
}

extension Engine {
    /// Whether `subscriber` may read `record` of `store`: a subscription never fires for a record
    /// its owner could not fetch. Private stores are readable by their owner only; in the public
    /// database the subscriber's security roles decide (`policies`, from `subscriberPolicies`).
    func subscriberMayRead(
        _ subscriber: String, record: RecordRow?, in store: StoreKey,
        policies: [String: AccessPolicy]
    ) -> Bool {
        switch store.scope {
        case .public:
            guard let record else { return true }
            let policy = policies[subscriber] ?? .unrestricted
            return policy.may(.read, recordType: record.recordType, creator: record.created.userRecordName)
        // A shared store is a participant's view: `notifyParticipants` passes only what they may read.
        case .private, .shared: return store.owner == subscriber
        }
    }

    /// The public-database policy of each subscriber: the developer (subscriptions made with a
    /// server key or no user) reads everything, users what their roles grant.
    func subscriberPolicies(_ store: StoreKey, subscribers: Set<String>, reader: any StorageReader) async throws -> [String: AccessPolicy] {
        guard store.scope == .public else { return [:] }
        let developer = try await reader.container(store.container)?.developerRecordName
        let grants = AccessPolicy.grouping(try await reader.grants(container: store.container, environment: store.environment))
        var policies: [String: AccessPolicy] = [:]
        for subscriber in subscribers where subscriber != developer {
            let roles = try await reader.roles(of: subscriber, container: store.container, environment: store.environment)
            policies[subscriber] = AccessPolicy(
                grants: grants, roles: roles.union([BuiltInRole.world, BuiltInRole.authenticated]),
                userRecordName: subscriber)
        }
        return policies
    }

    /// Queues the notifications of a write in the write's own transaction: finds the
    /// subscriptions of the store the changes match and queues one frame per (change,
    /// subscription) for each registered token of the subscriber. The frames commit with the
    /// write or not at all, so a process that dies after the commit loses no notification. Pass
    /// the result to `announceQueued` once the transaction has committed.
    func queueNotifications(
        _ store: StoreKey, events: [RecordEvent], deletedZones: [String] = [],
        writer: any StorageWriter
    ) async throws -> [QueuedNotification] {
        guard !events.isEmpty || !deletedZones.isEmpty else { return [] }
        return try await fanOut(store, events: events, deletedZones: deletedZones, writer: writer)
    }

    /// Tells outlets and waiting couriers (here and, through the storage, on other instances)
    /// about committed frames.
    func announceQueued(_ queued: [QueuedNotification]) async {
        guard !queued.isEmpty else { return }
        await notifications.queued(queued)
        await announce(Set(queued.map(\.token.digest)).sorted().map { .framesQueued(tokenDigest: $0) })
    }

    struct PendingFrame: Sendable {
        var subscriber: String
        var subscriptionID: String
        var firesOnce: Bool
        var frames: [JSONValue]
    }

    func fanOut(_ store: StoreKey, events: [RecordEvent], deletedZones: [String], writer: any StorageWriter) async throws -> [QueuedNotification] {
        let rows: [SubscriptionRow]
        if let cached = subscriptionCache.rows(store) {
            rows = cached
        } else {
            let generation = subscriptionCache.generation
            rows = try await writer.subscriptions(store, userRecordName: nil)
            subscriptionCache.remember(rows, for: store, readAt: generation)
        }
        // Most writes go to stores nobody subscribes to: stop before loading policies.
        guard !rows.isEmpty else { return [] }
        let schema = try await self.schema(container: store.container, environment: store.environment, reader: writer)
        let policies = try await self.subscriberPolicies(store, subscribers: Set(rows.map(\.userRecordName)), reader: writer)
        let nids = events.map { _ in UUID.random().uuidString.lowercased() }
        let batchNID = UUID.random().uuidString.lowercased()
        var pending: [PendingFrame] = []
        for row in rows {
            guard let subscription = try? Subscription(json: row.definition, path: "", fallbackID: row.subscriptionID) else { continue }
            let subscriber = row.userRecordName
            let builder = NotificationFrame(store: store, subscriber: subscriber, subscription: subscription)
            let readable = events.indices.filter { subscriberMayRead(subscriber, record: events[$0].record, in: store, policies: policies) }
            var frames: [JSONValue] = []
            switch subscription.kind {
            case .query:
                guard let query = subscription.query,
                    let parsed = try? RecordQuery(dictionary: query, zoneID: nil, zoneName: subscription.queryZoneName, limit: 1),
                    let plan = try? QueryPlanner(schema: schema).plan(parsed, mode: .justInTime).plan
                else { continue }
                let predicate = RecordPredicate(plan: plan)
                for index in readable where subscription.firesOn.contains(events[index].kind) && predicate.matches(events[index].record) {
                    frames.append(builder.query(nid: nids[index], record: events[index].record, kind: events[index].kind))
                    if subscription.firesOnce { break }
                }
            case .zone:
                guard let zoneName = subscription.zoneName else { continue }
                let touched =
                    readable.contains { events[$0].record.zoneName == zoneName }
                    || (deletedZones.contains(zoneName) && subscriberMayRead(subscriber, record: nil, in: store, policies: policies))
                if touched { frames.append(builder.zone(nid: batchNID, zoneName: zoneName)) }
            case .database:
                if !readable.isEmpty || (!deletedZones.isEmpty && subscriberMayRead(subscriber, record: nil, in: store, policies: policies)) {
                    frames.append(builder.database(nid: batchNID))
                }
            }
            if !frames.isEmpty {
                pending.append(
                    PendingFrame(
                        subscriber: subscriber, subscriptionID: subscription.subscriptionID,
                        firesOnce: subscription.firesOnce, frames: frames))
            }
        }
        guard !pending.isEmpty else { return [] }
        let keep = limits.maximumQueuedNotifications
        let now = nowMilliseconds()
        // firesOnce subscriptions are deleted below.
        defer { if pending.contains(where: \.firesOnce) { subscriptionCache.forget(store) } }
        var queued: [QueuedNotification] = []
        var tokens: [String: [PushTokenRow]] = [:]
        for item in pending {
            // A firesOnce subscription fires for whichever write deletes it first.
            if item.firesOnce,
                try await !writer.deleteSubscription(store, userRecordName: item.subscriber, subscriptionID: item.subscriptionID)
            {
                continue
            }
            if tokens[item.subscriber] == nil {
                tokens[item.subscriber] = try await writer.registeredPushTokens(
                    container: store.container, environment: store.environment, userRecordName: item.subscriber)
            }
            for token in tokens[item.subscriber] ?? [] {
                for frame in item.frames {
                    try await writer.enqueueFrame(tokenDigest: token.digest, body: frame.serializedString, now: now, keep: keep)
                    queued.append(QueuedNotification(token: token, frame: frame))
                }
            }
        }
        try await queuePushes(queued, writer: writer)
        return queued
    }
}

extension Engine {
    /// Zone subscriptions of deleted zones, and query subscriptions limited to one, go with the
    /// zone — after they fired for the deletion. (A zone made again later starts without them,
    /// as a new zone.) A failure is logged; the zone deletion stands.
    func removeSubscriptions(boundTo zoneNames: [String], in store: StoreKey) async {
        guard !zoneNames.isEmpty else { return }
        let zones = Set(zoneNames)
        defer { subscriptionCache.forget(store) }
        do {
            try await storage.write { writer in
                for row in try await writer.subscriptions(store, userRecordName: nil) {
                    guard let subscription = try? Subscription(json: row.definition, path: "", fallbackID: row.subscriptionID),
                        subscription.kind != .database, let zone = subscription.zoneName, zones.contains(zone)
                    else { continue }
                    _ = try await writer.deleteSubscription(store, userRecordName: row.userRecordName, subscriptionID: row.subscriptionID)
                }
            }
        } catch {
            logger.error("subscriptions: could not remove the subscriptions of deleted zones \(zoneNames) in \(store): \(error)")
        }
        await announce([.subscriptionsChanged(store)])
    }
}

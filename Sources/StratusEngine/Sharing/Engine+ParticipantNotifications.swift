import StratusModel

/// Database subscriptions of participants' shared databases: a write in a shared zone fires
/// those of the participants who may read what changed, and a participant who lost access (or
/// just gained it) hears of it through theirs, so their app fetches the zone list again.
extension Engine {
    /// The users with an accepted share in a zone of a private store (none for other zones).
    func acceptedParticipants(_ store: StoreKey, zoneName: String, reader: any StorageReader) async throws -> Set<String> {
        guard store.scope == .private, zoneName != ZoneID.defaultZoneName else { return [] }
        let shares = try await reader.shares(store, zoneName: zoneName)
        return Set(shares.flatMap { $0.participants.filter { $0.status == .accepted }.compactMap(\.userRecordName) })
    }

    /// Queues the frames for the participants of a zone after a write: `before` is who had
    /// accepted a share in it when the write began.
    func notifyParticipants(
        _ store: StoreKey, zoneName: String, events: [RecordEvent], before: Set<String>,
        writer: any StorageWriter
    ) async throws -> [QueuedNotification] {
        let after = try await acceptedParticipants(store, zoneName: zoneName, reader: writer)
        guard !before.isEmpty || !after.isEmpty else { return [] }
        let shares = try await writer.shares(store, zoneName: zoneName)
        var queued: [QueuedNotification] = []
        for user in before.union(after).sorted() {
            guard after.contains(user) else {
                queued += try await notifyMembershipChange(of: user, store: store, zoneName: zoneName, writer: writer)
                continue
            }
            guard before.contains(user) else {
                queued += try await notifyMembershipChange(of: user, store: store, zoneName: zoneName, writer: writer)
                continue
            }
            let access = ShareAccess(
                caller: user, store: store, zoneName: zoneName,
                shares: shares.filter { share in
                    share.participants.contains { $0.userRecordName == user && $0.status == .accepted }
                })
            var readable: [RecordEvent] = []
            for event in events {
                // A deleted record can no longer be placed in a hierarchy; its deletion is news.
                if event.kind == .delete { readable.append(event); continue }
                if try await access.mayRead(event.record.recordName, reader: writer) { readable.append(event) }
            }
            queued += try await queueNotifications(sharedStore(of: user, like: store), events: readable, writer: writer)
        }
        return queued
    }

    /// Fires `user`'s shared-database subscriptions for a zone that appeared in or left their
    /// shared database.
    func notifyMembershipChange(of user: String, store: StoreKey, zoneName: String, writer: any StorageWriter) async throws -> [QueuedNotification] {
        try await queueNotifications(sharedStore(of: user, like: store), events: [], deletedZones: [zoneName], writer: writer)
    }

    func sharedStore(of user: String, like store: StoreKey) -> StoreKey {
        StoreKey(container: store.container, environment: store.environment, scope: .shared, owner: user)
    }
}

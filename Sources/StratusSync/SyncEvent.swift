import Foundation
import StratusKit
import Synchronization

/// What the engine did, for the app to observe through ``SyncEngine/events``.
public enum SyncEvent: Sendable, CustomStringConvertible {
    /// A fetch started / finished.
    case willFetchChanges
    case didFetchChanges
    /// A page of a zone's server changes was applied to the local cache.
    case fetchedRecordZoneChanges(zoneID: CKRecordZone.ID, modified: [CKRecord.ID], deleted: [CKRecord.ID])
    /// A send started (with the number of queued changes) / finished.
    case willSendChanges(pending: Int)
    case didSendChanges
    /// A batch reached the server: saves and deletes it accepted.
    case sentRecordZoneChanges(saved: [CKRecord.ID], deleted: [CKRecord.ID])
    /// A record changed on both sides was resolved; `merged` holds the values now kept.
    case conflictResolved(recordID: CKRecord.ID, resolution: SyncResolution)
    /// The server refused a change for good; it stays queued but parked until
    /// ``SyncEngine/retryParkedChanges()``.
    case changeRefused(recordID: CKRecord.ID, error: CKError)
    /// A zone's change token expired on the server: the engine refetches the zone from scratch,
    /// keeping pending changes.
    case changeTokenExpired(zoneID: CKRecordZone.ID?)
    /// The server deleted a zone: its records and its pending changes were removed locally.
    case zoneDeleted(zoneID: CKRecordZone.ID, droppedPendingChanges: Int)
    /// A transient failure; the engine tries again after `delay` seconds.
    case retrying(after: TimeInterval, error: CKError)
    /// The server refused the credentials (API token revoked, user signed out). Syncing stops;
    /// local changes stay queued. Give the engine a database with valid credentials to go on.
    case authenticationFailed(error: CKError)
    /// A notification from the server arrived (the engine fetches in response).
    case notificationReceived(CKNotification)

    public var description: String {
        switch self {
        case .willFetchChanges: return "willFetchChanges"
        case .didFetchChanges: return "didFetchChanges"
        case .fetchedRecordZoneChanges(let zone, let modified, let deleted):
            return "fetchedRecordZoneChanges(\(zone.zoneName): \(modified.count) modified, \(deleted.count) deleted)"
        case .willSendChanges(let pending): return "willSendChanges(\(pending) pending)"
        case .didSendChanges: return "didSendChanges"
        case .sentRecordZoneChanges(let saved, let deleted): return "sentRecordZoneChanges(\(saved.count) saved, \(deleted.count) deleted)"
        case .conflictResolved(let id, let resolution):
            switch resolution {
            case .keep: return "conflictResolved(\(id.recordName): kept merged values)"
            case .delete: return "conflictResolved(\(id.recordName): deleted)"
            }
        case .changeRefused(let id, let error): return "changeRefused(\(id.recordName): \(error.localizedDescription))"
        case .changeTokenExpired(let zone): return "changeTokenExpired(\(zone?.zoneName ?? "database"))"
        case .zoneDeleted(let zone, let dropped): return "zoneDeleted(\(zone.zoneName), \(dropped) pending changes dropped)"
        case .retrying(let delay, let error): return "retrying(after \(delay)s: \(error.localizedDescription))"
        case .authenticationFailed(let error): return "authenticationFailed(\(error.localizedDescription))"
        case .notificationReceived(let notification): return "notificationReceived(\(notification.notificationType))"
        }
    }
}

/// Hands every event to every current observer. Each observer's buffer keeps the newest 10 000
/// events, so an app that stops reading does not make a long fetch hold memory.
final class EventBroadcaster: Sendable {
    private let observers = Mutex<[UUID: AsyncStream<SyncEvent>.Continuation]>([:])

    func stream() -> AsyncStream<SyncEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func emit(_ event: SyncEvent) {
        for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    func finish() {
        for continuation in observers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}

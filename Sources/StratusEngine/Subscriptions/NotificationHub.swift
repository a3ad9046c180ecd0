import StratusModel
import Synchronization

/// A frame queued for one push token, as an outlet sees it.
public struct QueuedNotification: Sendable {
    public var token: PushTokenRow
    public var frame: JSONValue

    public init(token: PushTokenRow, frame: JSONValue) {
        self.token = token
        self.frame = frame
    }
}

/// Something that carries notifications further once they are queued (committed): an APNs or
/// web-push sender would be one. The web courier needs none: it reads the queue itself, woken
/// by the hub.
public protocol NotificationOutlet: Sendable {
    func deliver(_ notifications: [QueuedNotification]) async
}

/// Where queued notifications go: the registered outlets, and the wake-ups of courier pollers
/// waiting on a token's queue.
public final class NotificationHub: Sendable {
    let outlets = Mutex<[any NotificationOutlet]>([])
    /// Per token digest, bumped whenever frames are queued for it.
    let versions = Mutex<[String: UInt64]>([:])

    public init() {}

    /// Adds an outlet; it receives every notification queued from now on.
    public func add(_ outlet: any NotificationOutlet) {
        outlets.withLock { $0.append(outlet) }
    }

    func queued(_ notifications: [QueuedNotification]) async {
        guard !notifications.isEmpty else { return }
        versions.withLock { versions in
            for notification in notifications { versions[notification.token.digest, default: 0] &+= 1 }
        }
        for outlet in outlets.withLock({ $0 }) { await outlet.deliver(notifications) }
    }

    /// Wakes the couriers waiting on a token's queue (frames were queued on another instance).
    func wake(_ digest: String) {
        versions.withLock { $0[digest, default: 0] &+= 1 }
    }

    /// Wakes every waiting courier, to look again at its queue.
    func wakeAll() {
        versions.withLock { versions in
            for digest in versions.keys { versions[digest, default: 0] &+= 1 }
        }
    }

    /// The wake-up counter of a token's queue.
    func version(_ digest: String) -> UInt64 { versions.withLock { $0[digest] ?? 0 } }
}

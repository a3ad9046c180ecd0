import Foundation
import Synchronization

/// Remembers recent credential look-ups for a few seconds so that a busy client does not pay a
/// database round trip per request just to prove who it is. Entries are keyed by the token as
/// the request carried it: hashing it first (the database keeps only digests) cost about 3% of a
/// lookup's server time, twice per request. The keys live only in this process's memory, as the
/// requests that carried them do. A revoked credential stops working within `lifetime`
/// (revocation also calls `removeAll`).
final class CredentialCache<Value: Sendable>: Sendable {
    let lifetime: TimeInterval
    let capacity: Int
    private let entries = Mutex<[String: (expires: Date, value: Value)]>([:])

    init(lifetime: TimeInterval = 2, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func value(for key: String) -> Value? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires < Date() {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    func store(_ value: Value, for key: String) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (Date().addingTimeInterval(lifetime), value)
        }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

import Synchronization

/// Each store's subscriptions, as the fan-out after every write reads them. Without it, every
/// write was followed by a read transaction, and in WAL mode a reader that sees another
/// connection's commit drops its whole page cache: about 4% of a single-record create's server
/// CPU went to re-reading pages for a store that, most of the time, has no subscriptions.
///
/// The engine forgets a store's entry after each write that saves or deletes one of its
/// subscriptions, so this process never sees a stale list. Entries also expire after `lifetime`,
/// for writers outside this process. A list read while a change committed is not kept
/// (`generation`), so it cannot outlive the forgetting.
final class SubscriptionCache: Sendable {
    static let lifetime: Duration = .seconds(2)

    private struct Entry {
        var rows: [SubscriptionRow]
        var loaded: ContinuousClock.Instant
    }

    private struct State {
        var entries: [StoreKey: Entry] = [:]
        var generation = 0
    }

    private let state = Mutex(State())

    /// The store's subscriptions if known and fresh.
    func rows(_ store: StoreKey) -> [SubscriptionRow]? {
        state.withLock { state in
            guard let entry = state.entries[store], ContinuousClock.now - entry.loaded < SubscriptionCache.lifetime else { return nil }
            return entry.rows
        }
    }

    /// Take before reading from storage; pass to `remember`.
    var generation: Int { state.withLock { $0.generation } }

    /// Keeps `rows` unless a subscription changed since `generation` was taken.
    func remember(_ rows: [SubscriptionRow], for store: StoreKey, readAt generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.entries[store] = Entry(rows: rows, loaded: .now)
        }
    }

    /// Forgets every store's entry (events from other instances may have been missed).
    func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll()
        }
    }

    /// Call after a write that saved or deleted subscriptions of `store` (committed or not).
    func forget(_ store: StoreKey) {
        state.withLock { state in
            state.generation += 1
            state.entries[store] = nil
        }
    }
}

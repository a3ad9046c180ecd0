import Synchronization

/// Delivery counts since the service started, per subscription and per token, for the log (and
/// for tests). Tokens appear by the first 12 characters of their digest, never in full.
public final class PushStatistics: Sendable {
    public struct Counts: Sendable, Equatable {
        public var delivered = 0
        public var failed = 0
        public var dropped = 0
    }

    public struct Snapshot: Sendable, Equatable {
        public var total = Counts()
        public var bySubscription: [String: Counts] = [:]
        public var byToken: [String: Counts] = [:]
    }

    private let state = Mutex(Snapshot())

    func record(token: String, subscription: String, _ change: (inout Counts) -> Void) {
        state.withLock { snapshot in
            change(&snapshot.total)
            change(&snapshot.bySubscription[subscription, default: Counts()])
            change(&snapshot.byToken[String(token.prefix(12)), default: Counts()])
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    /// One log line: totals, every subscription, and the tokens that failed or were dropped.
    var summary: String {
        let snapshot = self.snapshot
        func text(_ counts: Counts) -> String { "\(counts.delivered) delivered, \(counts.failed) failed, \(counts.dropped) dropped" }
        let subscriptions = snapshot.bySubscription.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }
        let troubled = snapshot.byToken.filter { $0.value.failed + $0.value.dropped > 0 }.sorted { $0.key < $1.key }
            .map { "\($0.key)…: \(text($0.value))" }
        return "push totals: \(text(snapshot.total)); by subscription: [\(subscriptions.joined(separator: "; "))]"
            + (troubled.isEmpty ? "" : "; tokens with failures: [\(troubled.joined(separator: "; "))]")
    }
}

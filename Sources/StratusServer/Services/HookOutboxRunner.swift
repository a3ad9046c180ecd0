import Logging
import ServiceLifecycle
import StratusEngine

/// Runs the after hooks queued in the hook outbox: leases due events (one per record at
/// a time, so a record's events run in commit order), runs each hook, removes the event once
/// the hook returned, and retries a failing one with backoff (1 s doubling to 1 h) for up to
/// 24 hours before keeping it as failed. Webhook deliveries are events of the same outbox. Runs
/// on every instance; the leases share the work.
public final class HookOutboxRunner: Service, Sendable {
    let engine: Engine
    let logger: Logger
    /// Events running at once.
    let concurrency: Int
    let pollInterval: Duration
    let holder: String
    let webhooks = WebhookDelivery()

    static let leaseMilliseconds: Int64 = 2 * Engine.afterHookTimeLimit.milliseconds
    static let giveUpMilliseconds: Int64 = 24 * 3600 * 1000

    public init(engine: Engine, concurrency: Int = 8, pollInterval: Duration = .milliseconds(250), logger: Logger) {
        self.engine = engine
        self.concurrency = concurrency
        self.pollInterval = pollInterval
        self.logger = logger
        self.holder = engine.instanceID
    }

    public func run() async throws {
        if !engine.storage.servesSeveralInstances {
            // One process serves this database: leases held when it last stopped are dead.
            _ = try? await engine.storage.write { writer in try await writer.releaseHookLeases() }
        }
        await cancelWhenGracefulShutdown { await self.drain() }
        await webhooks.shutdown()
    }

    private func drain() async {
        await withTaskGroup(of: String?.self) { group in
            var inFlight: Set<String> = []
            var ticking = false
            while !Task.isCancelled {
                let free = concurrency - inFlight.count
                if free > 0 {
                    for row in await claim(limit: free, excluding: Array(inFlight)) {
                        inFlight.insert(row.event.orderKey)
                        group.addTask {
                            await self.run(row)
                            return row.event.orderKey
                        }
                    }
                }
                if !ticking {
                    ticking = true
                    group.addTask {
                        try? await Task.sleep(for: self.pollInterval)
                        return nil
                    }
                }
                switch await group.next() {
                case .some(.some(let key)): inFlight.remove(key)
                case .some(.none): ticking = false
                case .none: break
                }
            }
            while await group.next() != nil {}
        }
    }

    private func claim(limit: Int, excluding: [String]) async -> [HookEventRow] {
        let now = nowMilliseconds()
        do {
            guard try await engine.storage.read({ reader in try await reader.hasDueHookEvent(nowMilliseconds: now) }) else { return [] }
            return try await engine.storage.write { writer in
                try await writer.claimHookEvents(
                    holder: self.holder, nowMilliseconds: now, leaseUntil: now + Self.leaseMilliseconds, limit: limit, excludingKeys: excluding)
            }
        } catch {
            logger.error("hooks: could not read the hook outbox; will retry: \(error)")
            return []
        }
    }

    private func run(_ row: HookEventRow) async {
        let outcome = await outcome(of: row)
        let what = "hook \(row.event.hook), event \(row.id) (\(row.event.kind.rawValue) of record \(row.event.record.recordName))"
        // Recording the outcome is retried: a lost completion would run the hook again.
        for attempt in 1...5 {
            do {
                try await settle(row, outcome, what)
                return
            } catch {
                logger.error("\(what): could not record the outcome, attempt \(attempt) of 5: \(error)")
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    /// Runs an after hook, or delivers to a webhook (whose events are named `webhook:ID`).
    private func outcome(of row: HookEventRow) async -> HookEventOutcome {
        guard row.event.hook.hasPrefix(WebhookRow.hookPrefix) else { return await engine.runHookEvent(row) }
        let id = String(row.event.hook.dropFirst(WebhookRow.hookPrefix.count))
        do {
            guard let webhook = try await engine.storage.read({ reader in try await reader.webhook(id: id) }) else {
                return .unrunnable("webhook \(id) was removed")
            }
            return await webhooks.deliver(row, to: webhook)
        } catch {
            return .failed("could not read webhook \(id): \(error)")
        }
    }

    private func settle(_ row: HookEventRow, _ outcome: HookEventOutcome, _ what: String) async throws {
        let now = nowMilliseconds()
        switch outcome {
        case .done:
            let removed = try await engine.storage.write { writer in try await writer.completeHookEvent(id: row.id, holder: self.holder) }
            if !removed { logger.warning("\(what): finished after its lease lapsed; it may run twice") }
        case .unrunnable(let reason):
            logger.error("\(what): kept as failed: \(reason)")
            try await engine.storage.write { writer in
                try await writer.failHookEvent(id: row.id, holder: self.holder, error: reason, nowMilliseconds: now)
            }
        case .failed(let reason):
            if now - row.createdMilliseconds >= Self.giveUpMilliseconds {
                logger.error("\(what): kept as failed after \(row.attempts) attempts over 24 h; last: \(reason)")
                try await engine.storage.write { writer in
                    try await writer.failHookEvent(id: row.id, holder: self.holder, error: reason, nowMilliseconds: now)
                }
                return
            }
            let delay = HookBackoff.delayMilliseconds(attempt: row.attempts)
            logger.warning("\(what) failed (attempt \(row.attempts)), retried in \(delay / 1000) s: \(reason)")
            try await engine.storage.write { writer in
                try await writer.retryHookEvent(
                    id: row.id, holder: self.holder, orderKey: row.event.orderKey, nextAttemptMilliseconds: now + delay, error: reason)
            }
        }
    }
}

/// When a failed after hook runs again: one second doubling to one hour.
enum HookBackoff {
    static func delayMilliseconds(attempt: Int) -> Int64 {
        min(1_000 << Int64(min(max(attempt - 1, 0), 12)), 3_600_000)
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

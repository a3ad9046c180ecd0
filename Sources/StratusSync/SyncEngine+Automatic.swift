import Foundation
import StratusKit

extension SyncEngine {
    /// Fetches server changes, then sends local ones (a send after the fetch meets fewer
    /// conflicts; the conflicts it meets are merged and sent in the same call).
    public func sync() async throws {
        try await fetchChanges()
        try await sendChanges()
    }

    /// Syncs automatically from now on: once now, shortly after each local change, and whenever
    /// the server notifies this engine (it saves a database subscription and reads the
    /// container's notification stream). Failures are reported on ``events`` and retried on the
    /// next trigger; after an authentication failure nothing is sent until ``resume(with:)``.
    public func start() {
        guard automatic == nil else { return }
        let automatic = AutomaticSync(engine: self)
        self.automatic = automatic
        automatic.requestSync()
    }

    /// Stops automatic syncing (a sync in progress finishes).
    public func stop() {
        automatic?.cancel()
        automatic = nil
    }

    /// Makes sure the server notifies this user's devices of every change in the database.
    func ensureSubscription() async throws {
        let subscription = CKDatabaseSubscription(subscriptionID: configuration.subscriptionID)
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        _ = try await database.save(subscription)
    }
}

/// The automatic-sync loop: a worker that syncs when woken (coalescing wake-ups that arrive
/// during a sync), and a listener that wakes it for each server notification.
final class AutomaticSync: Sendable {
    private let wake: AsyncStream<Void>.Continuation
    private let worker: Task<Void, Never>
    private let listener: Task<Void, Never>

    init(engine: SyncEngine) {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        worker = Task {
            for await _ in wakeups {
                // Let a burst of local edits land before sending them together.
                try? await Task.sleep(nanoseconds: 100_000_000)
                do {
                    try await engine.sync()
                } catch {
                    // Reported through events (retrying / authenticationFailed); the next local
                    // change or notification tries again.
                }
            }
        }
        listener = Task {
            var failures = 0
            while !Task.isCancelled {
                do {
                    try await engine.ensureSubscription()
                    for try await notification in engine.configuration.container.notifications() {
                        failures = 0
                        await engine.emit(.notificationReceived(notification))
                        wake.yield()
                    }
                } catch {
                    if Task.isCancelled { return }
                    failures += 1
                    try? await Task.sleep(nanoseconds: UInt64(min(60, 1 << min(failures, 6))) * 1_000_000_000)
                }
            }
        }
    }

    func requestSync() { wake.yield() }

    func cancel() {
        wake.finish()
        worker.cancel()
        listener.cancel()
    }
}

import StratusSQLiteCore
import Synchronization

/// Hands out connections, one task per connection, first come first served. Checking out an idle
/// connection takes a lock and returns without suspending; a task suspends only when every
/// connection is busy. (An actor here cost two executor hops per transaction even when idle
/// connections were waiting.)
final class ConnectionPool: Sendable {
    private struct State {
        var idle: [DirectConnection]
        var waiters: [CheckedContinuation<DirectConnection, Never>] = []
    }

    private let state: Mutex<State>
    let size: Int

    init(_ connections: [DirectConnection]) {
        state = Mutex(State(idle: connections))
        size = connections.count
    }

    func take() async -> DirectConnection {
        if let connection = state.withLock({ $0.idle.popLast() }) { return connection }
        return await withCheckedContinuation { continuation in
            let ready: DirectConnection? = state.withLock { state in
                // A connection may have come back between the first look and now.
                if let connection = state.idle.popLast() { return connection }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether a task is waiting for a connection.
    var hasWaiters: Bool { state.withLock { !$0.waiters.isEmpty } }

    func give(_ connection: DirectConnection) {
        let waiter: CheckedContinuation<DirectConnection, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.idle.append(connection)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: connection)
    }

    /// Runs `body` with a connection, returning it to the pool afterwards.
    func with<T>(_ body: (DirectConnection) async throws -> T) async throws -> T {
        let connection = await take()
        do {
            let result = try await body(connection)
            give(connection)
            return result
        } catch {
            give(connection)
            throw error
        }
    }
}

import Dispatch
import Synchronization

/// A value that a background thread sets once, waited for by blocking or by awaiting.
final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }

    private let state = Mutex(State())
    /// Entered until the value is set, for blocking waiters.
    private let pending = DispatchGroup()

    init() { pending.enter() }

    /// The value, if set.
    var value: Value? { state.withLock { $0.value } }

    /// Sets the value (once) and wakes every waiter.
    func set(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume(returning: value) }
        pending.leave()
    }

    /// Blocks the calling thread until the value is set.
    func wait() -> Value {
        pending.wait()
        return value!
    }

    /// Suspends until the value is set.
    func awaited() async -> Value {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Value? in
                if state.value == nil { state.waiters.append(continuation) }
                return state.value
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}

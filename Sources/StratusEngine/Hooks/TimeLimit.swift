import Synchronization

/// Waits for work at most a given time. The work is not stopped when time runs out (it is
/// cancelled, and may ignore that): the caller moves on, which is what a request needs.
enum TimeLimit {
    struct Exceeded: Error {}

    static func run<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let work = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            race.setTimer(
                Task {
                    try? await Task.sleep(for: limit)
                    if race.finish(.failure(Exceeded())) { work.cancel() }
                })
        }
    }

    /// Resumes the continuation once, with whichever outcome comes first, and stops the timer.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var timer: Task<Void, Never>?
            var finished = false
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        func setTimer(_ timer: Task<Void, Never>) {
            let finished = state.withLock { state in
                state.timer = timer
                return state.finished
            }
            if finished { timer.cancel() }
        }

        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            let taken = state.withLock { state -> (CheckedContinuation<T, any Error>, Task<Void, Never>?)? in
                guard !state.finished, let continuation = state.continuation else { return nil }
                state.finished = true
                state.continuation = nil
                return (continuation, state.timer)
            }
            guard let (continuation, timer) = taken else { return false }
            timer?.cancel()
            continuation.resume(with: result)
            return true
        }
    }
}

import Hummingbird
import NIOCore
import Synchronization

/// Runs a test's Hummingbird application on a port of 127.0.0.1 the system picks, and returns
/// the port and the task serving it (cancel it to stop).
func runOnLoopback<App: ApplicationProtocol>(
    _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) throws -> App
) async throws -> (port: Int, task: Task<Void, any Error>) {
    let port = Mutex<Int?>(nil)
    let app = try make { channel in port.withLock { $0 = channel.localAddress?.port } }
    let task = Task { try await app.runService(gracefulShutdownSignals: []) }
    let deadline = ContinuousClock.now + .seconds(20)
    while port.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    guard let bound = port.withLock({ $0 }) else {
        task.cancel()
        throw CancellationError()
    }
    return (bound, task)
}

import NIOCore
import NIOPosix
import ServiceLifecycle

/// Runs request tasks on the NIO event loop thread that woke them, instead of Swift's global
/// cooperative pool.
///
/// Without a preference, every request crosses threads at least three times: NIO reads the
/// request on an event loop, the handler task resumes on a pool thread, and the response write
/// hops back to the event loop. On a small machine those wake-ups and context switches cost more
/// than the request itself (a single-client profile showed a quarter of server time in kernel
/// task switches). With this executor preferred, a task resumed from an event loop thread stays on
/// that thread; a task resumed from elsewhere (a SQLite writer handing over its gate, a timer)
/// goes to one of the group's loops.
///
/// Handlers therefore run on event loops. That is safe here because request work is short and
/// CPU-bound (SQLite calls run inline either way); the pool it replaces has the same number of
/// threads as the group (one per core).
final class EventLoopTaskExecutor: TaskExecutor {
    private let group: MultiThreadedEventLoopGroup

    init(group: MultiThreadedEventLoopGroup) { self.group = group }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs `service` (the HTTP application) with its tasks, and the per-connection tasks they
/// start, preferring the event loops of `group`.
public struct EventLoopAffineService<Wrapped: Service>: Service {
    let service: Wrapped
    let group: MultiThreadedEventLoopGroup

    public init(_ service: Wrapped, group: MultiThreadedEventLoopGroup = .singleton) {
        self.service = service
        self.group = group
    }

    public func run() async throws {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(group: group)) {
            try await service.run()
        }
    }
}

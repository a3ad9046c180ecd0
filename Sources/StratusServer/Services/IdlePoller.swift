import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the machine's CPUs polling while requests come one after another, so they do not halt
/// in the short gaps between them.
///
/// On a virtual machine a CPU with nothing to run halts, and waking it for the next request costs
/// a hypervisor exit, paid by every request of a client that waits for each answer
/// (`Benchmarks/ab` with `--env-b STRATUS_IDLE_POLL_US=0 --workload lookup --clients 1` shows the
/// difference). Go's scheduler avoids the exit by spinning while briefly idle, and
/// Linux's `haltpoll` idle driver by polling before it halts (where the VM's owner enables it).
/// Here one polling thread per CPU does the same at `SCHED_IDLE` priority: it only ever runs on a
/// CPU that nothing else in the machine wants. Linux only; elsewhere the pollers do not start.
///
/// Polling helps only a server that answers one request at a time, where every request pays the
/// wake-up. With several clients there is work queued anyway, and pollers that never pause slow
/// concurrent creates (docs/decisions/0013-idle-pollers.md).
/// So the pollers stop `window` after the last request (an idle server uses no CPU), and pause for
/// `overlapPause` whenever a database request starts while another is in flight. Only database
/// requests count as in flight: a long poll or a download that stays open for seconds must not
/// pause them.
///
/// Nothing on the request path takes a lock: requests count with atomics, and wake sleeping
/// pollers through a semaphore. (A mutex shared with `SCHED_IDLE` threads could leave an event
/// loop waiting for a poller that gets no CPU.)
public final class IdlePoller: Service, Sendable {
    /// How long the pollers keep polling after the last request.
    public let window: Duration
    /// How many polling threads run (one per CPU, at most 8).
    public let threadCount: Int
    /// Seconds a poller rests when requests overlap before it looks again.
    static let overlapPause: TimeInterval = 0.01
    /// The largest accepted window (one second).
    public static let maximumWindowMicroseconds = 1_000_000

    /// Requests seen so far (a poller that sees it change starts its idle window over), and
    /// database requests being answered.
    let requests = Atomic<UInt64>(0)
    let inFlight = Atomic<Int>(0)
    /// When a database request last started while another was in flight (uptime nanoseconds).
    private let lastOverlapAt = Atomic<UInt64>(0)
    /// Pollers asleep until the next request, and what wakes them.
    private let idleSleepers = Atomic<Int>(0)
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Pollers polling right now, and how often one went to sleep for an idle server or paused
    /// for overlapping requests (for tests and diagnostics).
    private let polling = Atomic<Int>(0)
    let idleSleeps = Atomic<Int>(0)
    let overlapPauses = Atomic<Int>(0)
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let logger: Logger
    /// Whether pollers lower themselves to `SCHED_IDLE`. Tests turn it off: at idle priority a
    /// poller on a saturated machine (a parallel test run) may not run for seconds.
    let idlePriority: Bool

    public convenience init(window: Duration, logger: Logger) {
        self.init(window: window, threadCount: min(ProcessInfo.processInfo.activeProcessorCount, 8), idlePriority: true, logger: logger)
    }

    init(window: Duration, threadCount: Int, idlePriority: Bool, logger: Logger = Logger(label: "stratus.idle-poll")) {
        self.window = min(window, .microseconds(IdlePoller.maximumWindowMicroseconds))
        self.threadCount = threadCount
        self.idlePriority = idlePriority
        self.logger = logger
    }

    /// Called as any request starts: restarts the idle window, and wakes sleeping pollers.
    public func noteRequest() {
        requests.add(1, ordering: .sequentiallyConsistent)
        // A poller going to sleep either sees the new count or is counted here (both atomics are
        // sequentially consistent), so no request is missed; an extra signal only costs a poller
        // one more look.
        let sleepers = idleSleepers.load(ordering: .sequentiallyConsistent)
        for _ in 0..<sleepers { wakeUp.signal() }
    }

    /// Called as a database request starts (after `noteRequest`): marks an overlap if another
    /// is in flight.
    public func databaseRequestStarted() {
        if inFlight.add(1, ordering: .relaxed).newValue > 1 {
            lastOverlapAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }
    }

    public func databaseRequestFinished() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// How many pollers are polling right now (for tests).
    var pollingThreads: Int { polling.load(ordering: .relaxed) }

    /// Starts the pollers and stops them at graceful shutdown.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        stop()
    }

    /// Starts the polling threads once; they exit after `stop`.
    public func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        guard IdlePoller.isLinux || !idlePriority else {
            logger.info("idle polling needs Linux's SCHED_IDLE; it is off on this system")
            return
        }
        for index in 0..<threadCount {
            let thread = Thread { [self] in pollUntilStopped(first: index == 0) }
            thread.name = "stratus-idle-poll-\(index)"
            thread.start()
        }
    }

    #if os(Linux)
    static let isLinux = true
    #else
    static let isLinux = false
    #endif

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<threadCount { wakeUp.signal() }
    }

    private func pollUntilStopped(first: Bool) {
        // A poller at normal priority would take CPU from the requests it is meant to speed up.
        if idlePriority, !IdlePoller.lowerToIdlePriority() {
            if first { logger.warning("idle polling is off: this system refused SCHED_IDLE for its threads (errno \(errno)); start with --idle-poll-us 0 to silence this") }
            return
        }
        let windowNanoseconds =
            UInt64(window.components.seconds) * 1_000_000_000
            + UInt64(window.components.attoseconds / 1_000_000_000)
        var seen = requests.load(ordering: .relaxed)
        var lastRequestAt = DispatchTime.now().uptimeNanoseconds
        polling.add(1, ordering: .relaxed)
        while !stopped.load(ordering: .relaxed) {
            let now = DispatchTime.now().uptimeNanoseconds
            let current = requests.load(ordering: .relaxed)
            if current != seen {
                seen = current
                lastRequestAt = now
            } else if now &- lastRequestAt > windowNanoseconds {
                polling.subtract(1, ordering: .relaxed)
                idleSleeps.add(1, ordering: .relaxed)
                sleepUntilRequest(after: seen)
                polling.add(1, ordering: .relaxed)
                seen = requests.load(ordering: .relaxed)
                lastRequestAt = DispatchTime.now().uptimeNanoseconds
                continue
            }
            if now &- lastOverlapAt.load(ordering: .relaxed) < windowNanoseconds {
                polling.subtract(1, ordering: .relaxed)
                overlapPauses.add(1, ordering: .relaxed)
                Thread.sleep(forTimeInterval: IdlePoller.overlapPause)
                polling.add(1, ordering: .relaxed)
            }
        }
        polling.subtract(1, ordering: .relaxed)
    }

    private func sleepUntilRequest(after seen: UInt64) {
        idleSleepers.add(1, ordering: .sequentiallyConsistent)
        while requests.load(ordering: .sequentiallyConsistent) == seen, !stopped.load(ordering: .sequentiallyConsistent) {
            wakeUp.wait()
        }
        idleSleepers.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// `SCHED_IDLE`: the thread runs only on a CPU that would otherwise be idle, and anything
    /// else that becomes runnable there preempts it at once. Returns false where it may not be
    /// used (a restrictive sandbox).
    private static func lowerToIdlePriority() -> Bool {
        #if os(Linux)
        var parameters = sched_param(sched_priority: 0)
        let schedIdle: Int32 = 5 // SCHED_IDLE in <bits/sched.h>, which Swift's Glibc does not export
        return sched_setscheduler(0, schedIdle, &parameters) == 0
        #else
        return false
        #endif
    }
}

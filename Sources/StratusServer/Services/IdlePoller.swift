import Foundation
import ServiceLifecycle
import Synchronization

/// Keeps the machine's CPUs polling while requests come one after another, so they do not halt
/// in the short gaps between them.
///
/// On a virtual machine a CPU with nothing to run halts, and waking it for the next request costs
/// a hypervisor exit, paid by every request of a client that waits for each answer. On the 2-core
/// VM of `Benchmarks/`, one-client lookups measured 2,900–3,400 requests/s without pollers and
/// 4,700–5,900 with them (medians of alternating runs). Go's scheduler avoids it
/// by spinning while briefly idle, and Linux's `haltpoll` idle driver by polling before it halts
/// (where the VM's owner enables it). Here one polling thread per CPU does the same at
/// `SCHED_IDLE` priority: it only ever runs on a CPU that nothing else in the machine wants.
///
/// Polling helps only a server that answers one request at a time, where every request pays the
/// wake-up; with several clients at once there is work queued and polling cost throughput
/// (creates at 8 clients measured 13–20% slower with pollers that did not pause). So
/// the pollers stop `window` after the last request (an idle server uses no CPU), and pause while
/// requests overlap: they look again every `busyRecheck` and poll once none has overlapped for
/// a whole `window`.
///
/// Turn it off (`--idle-poll-us 0`) where spare CPU time is not free: battery-powered machines, or
/// hosts that bill or throttle for it.
public final class IdlePoller: Service, Sendable {
    /// How long the pollers keep polling after the last request, or once the server is busy.
    public let window: Duration
    /// How many polling threads run (one per CPU, at most 8).
    public let threadCount: Int
    /// How often a poller paused by overlapping requests looks again.
    static let busyRecheck: TimeInterval = 0.01

    /// Requests seen so far; a poller that sees it change starts its idle window over.
    private let requests = Atomic<UInt64>(0)
    private let inFlight = Atomic<Int>(0)
    /// When a request last started while another was in flight (uptime nanoseconds).
    private let lastOverlapAt = Atomic<UInt64>(0)
    /// Pollers asleep until the next request.
    private let idleSleepers = Atomic<Int>(0)
    /// Pollers polling right now, and how often one went to sleep for an idle server or paused
    /// for overlapping requests (for tests and diagnostics).
    private let polling = Atomic<Int>(0)
    let idleSleeps = Atomic<Int>(0)
    let overlapPauses = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let wakeUp = NSCondition()

    /// Whether pollers lower themselves to `SCHED_IDLE`. Tests turn it off: at idle priority a
    /// poller on a saturated machine (a parallel test run) may not run for seconds.
    let idlePriority: Bool

    public convenience init(window: Duration) {
        self.init(window: window, threadCount: min(ProcessInfo.processInfo.activeProcessorCount, 8), idlePriority: true)
    }

    init(window: Duration, threadCount: Int, idlePriority: Bool) {
        self.window = window
        self.threadCount = threadCount
        self.idlePriority = idlePriority
    }

    /// Called as each request starts: restarts the idle window, and wakes idle pollers.
    public func requestStarted() {
        if inFlight.add(1, ordering: .relaxed).newValue > 1 {
            lastOverlapAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }
        requests.add(1, ordering: .sequentiallyConsistent)
        // A poller going to sleep either sees the new count or is counted here (both atomics are
        // sequentially consistent), so no request is missed.
        if idleSleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeAll() }
    }

    public func requestFinished() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// How many pollers are polling right now.
    public var pollingThreads: Int { polling.load(ordering: .relaxed) }

    /// Starts the pollers and stops them at graceful shutdown.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        stop()
    }

    public func start() {
        for index in 0..<threadCount {
            let thread = Thread { [self] in pollUntilStopped() }
            thread.name = "stratus-idle-poll-\(index)"
            thread.start()
        }
    }

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeAll()
    }

    private func wakeAll() {
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    private func pollUntilStopped() {
        // A poller at normal priority would take CPU from the requests it is meant to speed up.
        guard !idlePriority || IdlePoller.lowerToIdlePriority() else { return }
        let windowNanoseconds = UInt64(window.components.seconds) * 1_000_000_000
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
                sleepUntilNextRequest(after: seen)
                polling.add(1, ordering: .relaxed)
                seen = requests.load(ordering: .relaxed)
                lastRequestAt = DispatchTime.now().uptimeNanoseconds
            }
            if now &- lastOverlapAt.load(ordering: .relaxed) < windowNanoseconds {
                polling.subtract(1, ordering: .relaxed)
                overlapPauses.add(1, ordering: .relaxed)
                pause(for: IdlePoller.busyRecheck)
                polling.add(1, ordering: .relaxed)
            }
        }
        polling.subtract(1, ordering: .relaxed)
    }

    private func sleepUntilNextRequest(after seen: UInt64) {
        wakeUp.lock()
        idleSleepers.add(1, ordering: .sequentiallyConsistent)
        while requests.load(ordering: .sequentiallyConsistent) == seen, !stopped.load(ordering: .sequentiallyConsistent) {
            wakeUp.wait()
        }
        idleSleepers.subtract(1, ordering: .sequentiallyConsistent)
        wakeUp.unlock()
    }

    /// Sleeps for `seconds` (or until stopped); requests do not wake it.
    private func pause(for seconds: TimeInterval) {
        wakeUp.lock()
        if !stopped.load(ordering: .sequentiallyConsistent) { _ = wakeUp.wait(until: Date(timeIntervalSinceNow: seconds)) }
        wakeUp.unlock()
    }

    /// `SCHED_IDLE`: the thread runs only on a CPU that would otherwise be idle, and anything
    /// else that becomes runnable there preempts it at once. Returns false where that class does
    /// not exist (other systems than Linux) or may not be used (a restrictive sandbox).
    private static func lowerToIdlePriority() -> Bool {
        #if os(Linux)
        var parameters = sched_param(sched_priority: 0)
        let schedIdle: Int32 = 5  // SCHED_IDLE in <bits/sched.h>, which Swift's Glibc does not export
        return sched_setscheduler(0, schedIdle, &parameters) == 0
        #else
        return false
        #endif
    }
}

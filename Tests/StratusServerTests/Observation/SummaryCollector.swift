import StratusServer
import Synchronization

/// An observer that keeps every summary it is given, for tests to read.
final class SummaryCollector: RequestObserver {
    private let summaries = Mutex<[RequestSummary]>([])

    func observe(_ summary: RequestSummary) {
        summaries.withLock { $0.append(summary) }
    }

    var all: [RequestSummary] { summaries.withLock { $0 } }

    /// Forgets what was collected so far (the fixture's own setup makes no requests, but a test
    /// may want to look at one step only).
    func reset() { summaries.withLock { $0.removeAll() } }
}

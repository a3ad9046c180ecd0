import StratusEngine
import Synchronization

/// Times one storage transaction for a `StorageTimingObserver`: from the call to the body's
/// first start (the wait for the writer or a connection) and from there to the end. A body the
/// backend retries keeps its first start.
final class TransactionTimer: Sendable {
    private let kind: StorageTransactionKind
    private let observer: any StorageTimingObserver
    private let called = ContinuousClock.now
    private let began = Mutex<ContinuousClock.Instant?>(nil)

    init(_ kind: StorageTransactionKind, _ observer: any StorageTimingObserver) {
        self.kind = kind
        self.observer = observer
    }

    func begin() {
        began.withLock { if $0 == nil { $0 = .now } }
    }

    func end() {
        let now = ContinuousClock.now
        let start = began.withLock { $0 } ?? now
        observer.storageTransaction(kind, waited: start - called, ran: now - start)
    }
}

import Foundation
import Synchronization

/// The base of CloudKit operations: an asynchronous `Operation` that runs its request when a
/// queue starts it and finishes when every callback has been called.
open class CKOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: inherited from Foundation's `Operation`; an operation is configured
    // before it is added to a queue and its state is guarded by `runState`.

    /// An operation's identifier.
    public typealias ID = String

    /// Settings shared by operations.
    open class Configuration: NSObject, @unchecked Sendable {
        // @unchecked Sendable: as in Apple's SDK; configured before use.
        public var container: CKContainer?
        public var qualityOfService: QualityOfService = .default
        public var allowsCellularAccess = true
        public var isLongLived = false
        public var timeoutIntervalForRequest: TimeInterval = 60
        public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
        public override init() { super.init() }
    }

    /// The operation's settings: the ones set here, else the group's default configuration.
    public var configuration: CKOperation.Configuration! {
        get { explicitConfiguration ?? group?.defaultConfiguration ?? fallbackConfiguration }
        set { explicitConfiguration = newValue }
    }
    private var explicitConfiguration: CKOperation.Configuration?
    private lazy var fallbackConfiguration = CKOperation.Configuration()
    /// Whether the app set ``configuration`` itself (a configured container's settings apply otherwise).
    var hasExplicitConfiguration: Bool { explicitConfiguration != nil }
    /// The group the operation belongs to.
    public var group: CKOperationGroup?
    /// A unique identifier (kept when a long-lived operation is resumed by a new process).
    public internal(set) var operationID: CKOperation.ID = UUID().uuidString
    /// Called when a long-lived operation has been written to disk, before it runs.
    public var longLivedOperationWasPersistedBlock: (() -> Void)?

    private enum RunState { case ready, executing, finished }
    private let runState = Mutex(RunState.ready)

    public override init() { super.init() }

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { runState.withLock { $0 == .executing } }
    open override var isFinished: Bool { runState.withLock { $0 == .finished } }

    open override func start() {
        guard
            runState.withLock({ state in
                guard state == .ready else { return false }
                state = .executing
                return true
            })
        else { return }
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
        Task {
            // The transport reads the configuration (its timeouts and deadline) from the task.
            await OperationContext.$current.withValue(OperationContext.running(self.configuration, group: self.group)) {
                await self.run()
            }
            LongLivedOperations.finished(self)
            self.finish()
        }
    }

    private func finish() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        runState.withLock { $0 = .finished }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }

    /// Does the operation's work and calls its callbacks. Subclasses override it.
    func run() async {}

    /// The error a cancelled operation reports.
    var cancellationError: CKError { CKError(.operationCancelled, "the operation was cancelled") }
}

/// Groups operations for reporting, and gives them a default configuration. The server records
/// nothing about groups.
public class CKOperationGroup: NSObject, @unchecked Sendable {
    // @unchecked Sendable: as in Apple's SDK; configured before use.
    public let operationGroupID: String
    public var defaultConfiguration: CKOperation.Configuration! = CKOperation.Configuration()
    public var name: String?
    public var quantity: Int = 0
    /// How much the group's operations are expected to upload.
    public var expectedSendSize: TransferSize = .unknown
    /// How much the group's operations are expected to download.
    public var expectedReceiveSize: TransferSize = .unknown
    public override init() {
        operationGroupID = UUID().uuidString
        super.init()
    }

    /// Restores an archived group (see CKOperationGroup+Coding.swift) with its ID and settings.
    public required init?(coder: NSCoder) {
        guard let id = coder.decodeStringIfPresent(forKey: "operationGroupID") else { return nil }
        operationGroupID = id
        super.init()
        decodeSettings(coder)
    }
}

/// An operation that acts on one database.
open class CKDatabaseOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The database; set by `CKDatabase.add(_:)`.
    public var database: CKDatabase?
    /// What went wrong before the operation ran (a long-lived one that could not be persisted).
    var setupError: CKError?

    /// The database to use, or the error to report when there is none.
    func requireDatabase() throws(CKError) -> CKDatabase {
        if let setupError { throw setupError }
        if isCancelled { throw cancellationError }
        guard let database else {
            throw CKError(.invalidArguments, "the operation has no database; add it with CKDatabase.add(_:)")
        }
        return database
    }
}

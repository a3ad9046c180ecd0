import Foundation

/// One of a container's databases: public, private or shared.
public final class CKDatabase: NSObject, Sendable {
    /// Which database.
    public enum Scope: Int, Sendable, Hashable {
        case `public` = 1
        case `private` = 2
        case shared = 3

        /// The CKWS path segment.
        var pathComponent: String {
            switch self {
            case .public: return "public"
            case .private: return "private"
            case .shared: return "shared"
            }
        }
    }

    /// The database's scope.
    public let databaseScope: CKDatabase.Scope
    let client: StratusClient
    let queue: OperationQueue

    init(scope: CKDatabase.Scope, client: StratusClient, queue: OperationQueue) {
        self.databaseScope = scope
        self.client = client
        self.queue = queue
        super.init()
    }

    /// Runs an operation against this database.
    public func add(_ operation: CKDatabaseOperation) {
        operation.database = self
        OperationContext.adopt(into: operation)
        do { try LongLivedOperations.persist(operation, in: self) } catch { operation.setupError = error }
        queue.addOperation(operation)
    }

    public override var description: String { "<CKDatabase: \(databaseScope.pathComponent)>" }
}

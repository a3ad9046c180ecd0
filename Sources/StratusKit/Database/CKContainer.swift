import Foundation
import StratusModel
import Synchronization

/// The account status of the current user.
public enum CKAccountStatus: Int, Sendable {
    case couldNotDetermine = 0
    case available = 1
    case restricted = 2
    case noAccount = 3
    case temporarilyUnavailable = 4
}

/// A container: an app's databases on a Stratus server.
public final class CKContainer: NSObject, Sendable {
    /// The container's identifier.
    public let containerIdentifier: String?
    let client: StratusClient
    /// The queue operations added through ``add(_:)`` or a database run on.
    let operationQueue: OperationQueue

    /// The public database: shared by every user of the app.
    public let publicCloudDatabase: CKDatabase
    /// The current user's private database.
    public let privateCloudDatabase: CKDatabase
    /// Zones other users shared with the current user.
    public let sharedCloudDatabase: CKDatabase

    private static let defaultContainer = Mutex<CKContainer?>(nil)

    /// The container configured by the environment (`STRATUS_URL`, `STRATUS_CONTAINER`,
    /// `STRATUS_API_TOKEN`, …; see ``StratusConfiguration``). Stops the program with an
    /// explanation when the environment names no server, as Apple's SDK does without entitlements.
    public class func `default`() -> CKContainer {
        defaultContainer.withLock { cached in
            if let cached { return cached }
            guard let configuration = StratusConfiguration.fromEnvironment() else {
                fatalError("CKContainer.default(): set STRATUS_URL, STRATUS_CONTAINER and STRATUS_API_TOKEN (or STRATUS_CONFIG)")
            }
            let container = CKContainer(configuration: configuration)
            cached = container
            return container
        }
    }

    /// The container with the given identifier, on the server the environment names.
    public convenience init(identifier containerIdentifier: String) {
        guard let configuration = StratusConfiguration.fromEnvironment(containerIdentifier: containerIdentifier) else {
            fatalError("CKContainer(identifier:): set STRATUS_URL and STRATUS_API_TOKEN (or STRATUS_CONFIG)")
        }
        self.init(configuration: configuration)
    }

    /// A container with an explicit configuration.
    public init(configuration: StratusConfiguration) {
        let client = StratusClient(configuration: configuration)
        let queue = OperationQueue()
        queue.name = "StratusKit.\(configuration.containerIdentifier)"
        queue.maxConcurrentOperationCount = 4
        self.client = client
        self.operationQueue = queue
        self.containerIdentifier = configuration.containerIdentifier
        self.publicCloudDatabase = CKDatabase(scope: .public, client: client, queue: queue)
        self.privateCloudDatabase = CKDatabase(scope: .private, client: client, queue: queue)
        self.sharedCloudDatabase = CKDatabase(scope: .shared, client: client, queue: queue)
        super.init()
    }

    /// The database with the given scope.
    public func database(with databaseScope: CKDatabase.Scope) -> CKDatabase {
        switch databaseScope {
        case .public: return publicCloudDatabase
        case .private: return privateCloudDatabase
        case .shared: return sharedCloudDatabase
        }
    }

    /// Runs a container-level operation, or a database operation against the private database
    /// when it names no database.
    public func add(_ operation: CKOperation) {
        OperationContext.adopt(into: operation)
        if operation.configuration.container == nil { operation.configuration.container = self }
        if let databaseOperation = operation as? CKDatabaseOperation {
            (databaseOperation.database ?? privateCloudDatabase).add(databaseOperation)
            return
        }
        operationQueue.addOperation(operation)
    }

    /// The web auth token in use (it rotates with every answer); sign-in flows set it.
    public var webAuthToken: String? {
        get { client.currentWebAuthToken }
        set {
            let previous = client.currentWebAuthToken
            client.setWebAuthToken(newValue)
            guard previous != newValue else { return }
            client.encryption.forgetCaller()
            NotificationCenter.default.post(name: .CKAccountChanged, object: self)
        }
    }

    /// Whether a user is signed in: `available` when the server accepts the web auth token,
    /// `noAccount` when there is none or it is refused.
    public func accountStatus() async throws -> CKAccountStatus {
        guard client.currentWebAuthToken != nil else { return .noAccount }
        do {
            // The cheapest request that needs a signed-in user.
            _ = try await privateCloudDatabase.listZones()
            return .available
        } catch  where error.code == .notAuthenticated {
            return .noAccount
        }
    }

    /// Completion-handler form of ``accountStatus()``.
    public func accountStatus(completionHandler: @escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await accountStatus(), nil) } catch { completionHandler(.couldNotDetermine, error) }
        }
    }

    /// The current user's record ID (`users/caller`).
    public func userRecordID() async throws -> CKRecord.ID {
        CKRecord.ID(recordName: try await client.callerRecordName())
    }

    /// Completion-handler form of ``userRecordID()``.
    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await userRecordID(), nil) } catch { completionHandler(nil, error) }
        }
    }
}

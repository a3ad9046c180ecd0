import StratusEngine
import Synchronization

/// What the handlers learn about a request while answering it (the path they validated, who
/// authenticated, the error they rendered), collected for its `RequestSummary`. Bound as a task
/// local by `ObservedResponder` only while some observer listens, so without observers the
/// handlers' notes cost one task-local read that finds nothing.
final class RequestRecord: Sendable {
    @TaskLocal static var current: RequestRecord?

    struct Facts {
        var operation: RequestSummary.Operation?
        var endpoint: String?
        var container: String?
        var database: DatabaseScope?
        var environment: DatabaseEnvironment?
        var serverErrorCode: String?
        /// The `X-Apple-Request-UUID` the response carries (noted where the header is set:
        /// reading it back from the response's fields built their lookup index, 1% of a lookup).
        var uuid: String?
        /// Whose rate-limit budget the request spent (`Authenticated.rateLimitKey`), hashed
        /// before it leaves the record.
        var rateLimitKey: String?
    }

    private let facts = Mutex(Facts())

    var snapshot: Facts { facts.withLock { $0 } }

    func note(_ path: DatabasePath) {
        facts.withLock { facts in
            facts.operation = path.operation.summaryOperation
            facts.endpoint = path.operation.rawValue
            facts.container = path.container
            facts.database = path.scope
            facts.environment = path.environment
        }
    }

    func note(rateLimitKey: String) {
        facts.withLock { $0.rateLimitKey = rateLimitKey }
    }

    func note(uuid: String) {
        facts.withLock { $0.uuid = uuid }
    }

    func note(serverErrorCode: String) {
        facts.withLock { $0.serverErrorCode = serverErrorCode }
    }
}

extension DatabaseOperation {
    /// The operation kind a summary reports. Push tokens belong with the courier that delivers
    /// to them; every change feed, whatever its path, is `changes`.
    var summaryOperation: RequestSummary.Operation {
        switch self {
        case .queryRecords, .countRecords, .aggregateRecords: return .query
        case .lookupRecords: return .lookup
        case .modifyRecords: return .modify
        case .zoneChanges, .databaseChanges, .recordChanges, .zoneListChanges: return .changes
        case .listZones, .lookupZones, .modifyZones: return .zones
        case .uploadAssets, .rereferenceAssets: return .assets
        case .callerIdentity, .currentUser, .discoverUsers, .lookupUsersByEmail, .lookupUsersByID, .lookupUsersByContacts: return .users
        case .listSubscriptions, .lookupSubscriptions, .modifySubscriptions: return .subscriptions
        case .createToken, .registerToken: return .courier
        case .resolveShares, .acceptShares: return .sharing
        }
    }
}

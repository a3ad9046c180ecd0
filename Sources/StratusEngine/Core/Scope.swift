import StratusModel

/// `development` or `production`: each container has both, with separate schema and data.
public enum DatabaseEnvironment: String, Sendable, Hashable, CaseIterable {
    case development
    case production
}

/// Which database of a container a request addresses.
public enum DatabaseScope: String, Sendable, Hashable, CaseIterable {
    case `public`
    case `private`
    case shared

    /// Native `CKDatabase.Scope` raw value (public 1, private 2, shared 3).
    public var nativeValue: Int {
        switch self {
        case .public: return 1
        case .private: return 2
        case .shared: return 3
        }
    }
}

/// One logical store: a (container, environment, database, owner) tuple. Zones live inside it,
/// records inside zones. The public database has one store per container and environment, with
/// an empty owner; each user's private database is its own store.
public struct StoreKey: Sendable, Hashable, CustomStringConvertible {
    public var container: String
    public var environment: DatabaseEnvironment
    public var scope: DatabaseScope
    public var owner: String

    public init(container: String, environment: DatabaseEnvironment, scope: DatabaseScope, owner: String) {
        self.container = container
        self.environment = environment
        self.scope = scope
        self.owner = scope == .public ? "" : owner
    }

    public var description: String { "\(container)/\(environment.rawValue)/\(scope.rawValue)/\(owner)" }
}

/// Who is making a request, as far as the engine cares.
public struct Caller: Sendable, Hashable {
    /// The signed-in user, or `nil` for a request with only an API token.
    public var userRecordName: String?
    /// The record name used for `created`/`modified` when no user is signed in: the container's
    /// developer identity (an API token or server key acts as the developer, as in CloudKit).
    public var developerRecordName: String

    public init(userRecordName: String?, developerRecordName: String) {
        self.userRecordName = userRecordName
        self.developerRecordName = developerRecordName
    }

    public var effectiveRecordName: String { userRecordName ?? developerRecordName }
}

/// The context of one database request.
public struct RequestScope: Sendable {
    public var store: StoreKey
    public var caller: Caller
    /// The address clients reach this server at (`http://host:port`), for the upload and
    /// download URLs of assets; set by the HTTP layer. `nil` outside HTTP (no URLs are made).
    public var assetBaseURL: String?
    /// Record permissions in the public database (private stores are their owner's alone).
    public var access: AccessPolicy
    /// Set when a participant's shared-database request runs on the owner's store: their
    /// writes are judged by `ShareAccess`.
    var viaSharedDatabase = false
    /// Hooks not run for this request's writes: the ones whose context made it.
    var suppressedHooks: Set<String> = []

    public init(store: StoreKey, caller: Caller, access: AccessPolicy = .unrestricted) {
        self.store = store
        self.caller = caller
        self.access = store.scope == .public ? access : .unrestricted
    }
}

import Logging
import StratusModel

/// What a server function knows of its call, and its way into the container's databases.
public struct FunctionContext: Sendable {
    /// Who called: a signed-in user, or the developer (an API token alone, a server-to-server key).
    public let caller: Caller
    public let container: String
    public let environment: DatabaseEnvironment
    /// Logs under the function's name.
    public let logger: Logger
    let engine: Engine
    /// The caller's scope in the public database, as authentication made it.
    let publicScope: RequestScope

    public init(engine: Engine, scope: RequestScope, functionName: String) {
        self.engine = engine
        self.publicScope = scope
        self.caller = scope.caller
        self.container = scope.store.container
        self.environment = scope.store.environment
        var logger = engine.logger
        logger[metadataKey: "function"] = .string(functionName)
        self.logger = logger
    }

    /// The public database, with the caller's permissions.
    public var publicDatabase: HookDatabase {
        HookDatabase(engine: engine, scope: publicScope)
    }

    /// The caller's private database. AUTHENTICATION_REQUIRED for a caller with no user.
    public func privateDatabase() throws -> HookDatabase {
        guard let user = caller.userRecordName else {
            throw CloudKitError(.authenticationRequired, "this function reads the caller's private database; sign in first")
        }
        var scope = RequestScope(store: StoreKey(container: container, environment: environment, scope: .private, owner: user), caller: caller)
        scope.assetBaseURL = publicScope.assetBaseURL
        return HookDatabase(engine: engine, scope: scope)
    }

    /// The public database, or a user's private one, with every permission: records written are
    /// stamped with the container's developer identity.
    public func asDeveloper(privateDatabaseOf owner: String? = nil) -> HookDatabase {
        let store = StoreKey(container: container, environment: environment, scope: owner == nil ? .public : .private, owner: owner ?? "")
        return HookDatabase(engine: engine, scope: .developer(store, caller.developerRecordName, assetBaseURL: publicScope.assetBaseURL))
    }
}

extension Engine {
    /// A container's public database, or a user's private one, read and written as the
    /// developer (scheduled jobs). NOT_FOUND for a container this server does not have.
    public func developerDatabase(container: String, environment: DatabaseEnvironment, privateDatabaseOf owner: String?) async throws
        -> HookDatabase
    {
        guard let row = try await storage.read({ reader in try await reader.container(container) }) else {
            throw CloudKitError(.notFound, "container \(container) does not exist on this server")
        }
        let store = StoreKey(container: container, environment: environment, scope: owner == nil ? .public : .private, owner: owner ?? "")
        return HookDatabase(engine: self, scope: .developer(store, row.developerRecordName))
    }
}

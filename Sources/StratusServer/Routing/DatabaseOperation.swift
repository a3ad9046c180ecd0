import StratusEngine
import StratusWire
import StratusModel

/// The database operations this server answers, named by their path after the database segment.
enum DatabaseOperation: String, Sendable, CaseIterable {
    case modifyRecords = "records/modify"
    case lookupRecords = "records/lookup"
    case queryRecords = "records/query"
    case countRecords = "records/count"
    case aggregateRecords = "records/aggregate"
    case listZones = "zones/list"
    case lookupZones = "zones/lookup"
    case modifyZones = "zones/modify"
    case zoneChanges = "changes/zone"
    case databaseChanges = "changes/database"
    case recordChanges = "records/changes"
    case zoneListChanges = "zones/changes"
    case listSubscriptions = "subscriptions/list"
    case lookupSubscriptions = "subscriptions/lookup"
    case modifySubscriptions = "subscriptions/modify"
    case createToken = "tokens/create"
    case registerToken = "tokens/register"
    case uploadAssets = "assets/upload"
    case rereferenceAssets = "assets/rereference"
    case callerIdentity = "users/caller"
    case currentUser = "users/current"
    case discoverUsers = "users/discover"
    case lookupUsersByEmail = "users/lookup/email"
    case lookupUsersByID = "users/lookup/id"
    case lookupUsersByContacts = "users/lookup/contacts"
    case resolveShares = "records/resolve"
    case acceptShares = "records/accept"

    /// Whether the operation reads a request body (zones/list and subscriptions/list are GETs and ignore it).
    var takesBody: Bool { ![.listZones, .listSubscriptions, .callerIdentity, .currentUser].contains(self) }

    /// Operations an anonymous caller may not use: subscriptions and push tokens belong to a user
    /// (an anonymous subscriber would otherwise be notified of records it may not read).
    var needsIdentity: Bool {
        [.listSubscriptions, .lookupSubscriptions, .modifySubscriptions, .createToken, .registerToken].contains(self)
    }

    func run(_ engine: Engine, scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        if needsIdentity, scope.access.isAnonymous {
            throw CloudKitError(.authenticationRequired, "\(rawValue) needs a signed-in user: add ckWebAuthToken")
        }
        if scope.store.scope == .shared, let result = try await engine.runSharedDatabase(rawValue, scope: scope, body: body) {
            return result
        }
        switch self {
        case .modifyRecords: return try await engine.modifyRecords(scope, body: body)
        case .lookupRecords: return try await engine.lookupRecords(scope, body: body)
        case .queryRecords: return try await engine.queryRecords(scope, body: body)
        case .countRecords: return try await engine.countRecords(scope, body: body)
        case .aggregateRecords: return try await engine.aggregateRecords(scope, body: body)
        case .listZones: return try await engine.listZones(scope)
        case .lookupZones: return try await engine.lookupZones(scope, body: body)
        case .modifyZones: return try await engine.modifyZones(scope, body: body)
        case .zoneChanges: return try await engine.zoneChanges(scope, body: body)
        case .databaseChanges: return try await engine.databaseChanges(scope, body: body)
        case .recordChanges: return try await engine.recordChanges(scope, body: body)
        case .zoneListChanges: return try await engine.zoneListChanges(scope, body: body)
        case .listSubscriptions: return try await engine.listSubscriptions(scope)
        case .lookupSubscriptions: return try await engine.lookupSubscriptions(scope, body: body)
        case .modifySubscriptions: return try await engine.modifySubscriptions(scope, body: body)
        case .createToken: return try await engine.createPushToken(scope, body: body)
        case .registerToken: return try await engine.registerPushToken(scope, body: body)
        case .uploadAssets: return try await engine.requestAssetUploads(scope, body: body)
        case .rereferenceAssets: return try await engine.rereferenceAssets(scope, body: body)
        case .callerIdentity, .currentUser: return try await engine.callerIdentity(scope)
        case .discoverUsers:
            let isGet = body.objectValue?.isEmpty ?? true
            return try await engine.discoverUsers(scope, body: isGet ? nil : body, style: isGet ? .all : .lookupInfos)
        case .lookupUsersByEmail: return try await engine.discoverUsers(scope, body: body, style: .email)
        case .lookupUsersByID: return try await engine.discoverUsers(scope, body: body, style: .recordName)
        case .lookupUsersByContacts: return try await engine.discoverUsers(scope, body: body, style: .contacts)
        case .resolveShares, .acceptShares:
            guard scope.store.scope == .public else {
                throw CloudKitError.badRequest("\(rawValue) is addressed under the public database: /database/1/{container}/{environment}/public/\(rawValue)")
            }
            return self == .resolveShares ? try await engine.resolveShares(scope, body: body) : try await engine.acceptShares(scope, body: body)
        }
    }
}

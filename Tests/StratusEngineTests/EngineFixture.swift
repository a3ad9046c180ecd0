import Foundation
import Logging
import StratusEngine
import StratusWire
import StratusModel
import ServiceLifecycle
import StratusTestSupport

/// A real engine on the test backend (a real SQLite file in a fresh temporary folder, or a fresh
/// PostgreSQL database: `TestBackend`), with one container.
struct EngineFixture {
    let engine: Engine
    let storage: any RecordStorage & Service
    let folder: URL
    let container = "iCloud.test.Stratus"
    let apiToken: String

    /// `sqliteOnly`: for tests of the SQLite file itself, which run on SQLite whatever the backend.
    static func make(limits: EngineLimits = EngineLimits(), sqliteOnly: Bool = false) async throws -> EngineFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let storage = try await TestBackend.open(folder: folder, readerCount: 2, sqliteOnly: sqliteOnly, logger: logger)
        let engine = Engine(storage: storage, secret: Array(repeating: 7, count: 32), limits: limits, logger: logger)
        let token = try await engine.createContainer("iCloud.test.Stratus")
        return EngineFixture(engine: engine, storage: storage, folder: folder, apiToken: token)
    }

    func scope(
        _ database: DatabaseScope = .public, environment: DatabaseEnvironment = .development,
        user: String? = nil
    ) async throws -> RequestScope {
        let scope = try await engine.authenticate(
            container: container, environment: environment, scope: database,
            credentials: RequestCredentials(apiToken: apiToken, webAuthToken: user),
            signInURL: "http://localhost/signin"
        ).scope
        // Without a user the engine tests act as the developer (as a server-to-server key does):
        // they test CloudKit semantics, not security roles.
        guard user == nil else { return scope }
        return RequestScope(store: scope.store, caller: scope.caller)
    }

    func close() async {
        try? await storage.close()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Request helpers

    @discardableResult
    func modify(_ scope: RequestScope, _ operations: [JSONValue], extra: [String: JSONValue] = [:]) async throws -> [JSONValue] {
        var body: [String: JSONValue] = ["operations": .array(operations)]
        for (key, value) in extra { body[key] = value }
        return try await engine.modifyRecords(scope, body: .object(body))["records"]?.arrayValue ?? []
    }

    func query(_ scope: RequestScope, _ query: JSONValue, extra: [String: JSONValue] = [:]) async throws -> JSONValue {
        var body: [String: JSONValue] = ["query": query]
        for (key, value) in extra { body[key] = value }
        return try await engine.queryRecords(scope, body: .object(body))
    }

    func names(_ response: JSONValue) -> [String] {
        (response["records"]?.arrayValue ?? []).compactMap { $0["recordName"]?.stringValue }
    }
}

func createOp(_ name: String?, type: String = "Item", fields: [String: JSONValue]) -> JSONValue {
    var record: [String: JSONValue] = ["recordType": .string(type), "fields": .object(fields.mapValues { ["value": $0] })]
    if let name { record["recordName"] = .string(name) }
    return ["operationType": "create", "record": .object(record)]
}

func typedField(_ value: JSONValue, _ type: String) -> JSONValue { ["value": value, "type": .string(type)] }

/// Runs `body` and returns the CloudKit error it threw, or nil.
func cloudKitError(_ body: () async throws -> Void) async -> CloudKitError? {
    do { try await body() } catch let error as CloudKitError { return error } catch { return nil }
    return nil
}

import Crypto
import Foundation
import Logging
import ServiceLifecycle
import StratusEngine
import StratusModel
import StratusPush
import StratusTestSupport
import Testing

/// An engine on the test backend (SQLite, or PostgreSQL under scripts/with-postgres) with one
/// container whose public database the developer subscribes to, a fake APNs configured as the
/// container's provider, and the push delivery service to run against them.
struct PushFixture {
    let engine: Engine
    let storage: any RecordStorage
    /// A second storage on the same database, as another instance sees it (`make(instances: 2)`).
    let otherInstance: (any RecordStorage)?
    let closeStorage: @Sendable () async -> Void
    let folder: URL
    let container = "iCloud.test.Push"
    let apiToken: String
    let providerKey = P256.Signing.PrivateKey()
    let keyID = "KEY1234567"
    let teamID = "TEAM123456"
    let topic = "com.example.notes"
    let certificate: TestCertificate

    static func make(instances: Int = 1, limits: EngineLimits = EngineLimits()) async throws -> PushFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let storage: any RecordStorage, other: (any RecordStorage)?, close: @Sendable () async -> Void
        if instances == 2 {
            (storage, other, close) = try await TestBackend.openTwo(folder: folder, logger: logger)
        } else {
            let single = try await TestBackend.open(folder: folder, readerCount: 2, logger: logger)
            (storage, other, close) = (single, nil, { try? await single.close() })
        }
        let engine = Engine(storage: storage, secret: Array(repeating: 7, count: 32), limits: limits, logger: logger)
        let token = try await engine.createContainer("iCloud.test.Push")
        return PushFixture(
            engine: engine, storage: storage, otherInstance: other, closeStorage: close, folder: folder, apiToken: token,
            certificate: try await TestCertificate.make(in: folder))
    }

    func close() async {
        await closeStorage()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The public database as the developer (as a server-to-server key acts).
    func scope() async throws -> RequestScope {
        let scope = try await engine.authenticate(
            container: container, environment: .development, scope: .public,
            credentials: RequestCredentials(apiToken: apiToken, webAuthToken: nil),
            signInURL: "http://localhost/signin"
        ).scope
        return RequestScope(store: scope.store, caller: scope.caller)
    }

    func startAPNs() async throws -> FakeAPNs {
        let fake = try await FakeAPNs.start(certificate: certificate, key: providerKey, keyID: keyID, teamID: teamID, topic: topic)
        let settings = APNsSettings(
            keyPEM: providerKey.pemRepresentation, keyID: keyID, teamID: teamID, topic: topic,
            endpoint: fake.endpoint)
        try await engine.savePushCredential(
            PushCredentialRow(
                container: container, environment: .development,
                provider: APNsSettings.provider, settings: try settings.validated().json))
        return fake
    }

    /// Registers an Apple device token (hex) as UIApplication hands it to an app.
    func registerDevice(_ hex: String) async throws {
        _ = try await engine.registerPushToken(
            try await scope(),
            body: [
                "apnsEnvironment": "development", "apnsToken": .string(Data(deviceTokenBytes(hex)).base64EncodedString()),
            ])
    }

    /// Registers `devices`, saves a first record (so the type exists) and subscribes to every
    /// change of it as `all`.
    func subscribeAll(devices: [String], info: JSONValue? = nil) async throws {
        for device in devices { try await registerDevice(device) }
        try await create(["seed"])
        try await subscribe(querySubscription("all", info: info))
    }

    func subscribe(_ subscription: JSONValue) async throws {
        _ = try await engine.modifySubscriptions(
            try await scope(),
            body: [
                "operations": [["operationType": "create", "subscription": subscription]]
            ])
    }

    func create(_ names: [String], fields: [String: JSONValue] = ["title": ["value": "hello"]]) async throws {
        let operations: [JSONValue] = names.map { name in
            ["operationType": "create", "record": ["recordName": .string(name), "recordType": "Item", "fields": .object(fields)]]
        }
        _ = try await engine.modifyRecords(try await scope(), body: ["operations": .array(operations)])
    }

    /// Runs the delivery service (on `instance`, default this fixture's storage) until the returned stop is called.
    func deliver(on instance: (any RecordStorage)? = nil, _ configure: (inout PushDeliveryOptions) -> Void = { _ in })
        throws -> (service: PushDeliveryService, stop: @Sendable () async -> Void)
    {
        var options = PushDeliveryOptions()
        options.trustedCertificatesPEM = certificate.certificatePEM
        options.pollInterval = .milliseconds(50)
        configure(&options)
        var logger = Logger(label: "push")
        logger.logLevel = .critical
        let service = try PushDeliveryService(storage: instance ?? storage, logger: logger, options: options)
        let task = Task { try await service.run() }
        return (
            service,
            {
                task.cancel(); _ = try? await task.value
            }
        )
    }

    func pushToken(_ hex: String) async throws -> PushTokenRow? {
        try await storage.read { reader in try await reader.pushToken(digest: secretDigest(hex)) }
    }

    func status() async throws -> (pending: Int, drops: [PushDropRow]) { try await engine.pushStatus(drops: 100) }
}

/// A device token: 32 bytes as 64 hex digits, distinct per `index`.
func deviceToken(_ index: Int) -> String {
    String(format: "%08x", index) + String(repeating: "ab", count: 28)
}

func deviceTokenBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

func querySubscription(_ id: String, info: JSONValue? = nil) -> JSONValue {
    var members: [String: JSONValue] = [
        "subscriptionID": .string(id), "subscriptionType": "query", "query": ["recordType": "Item", "filterBy": []],
        "firesOn": ["create", "update", "delete"],
    ]
    if let info { members["notificationInfo"] = info }
    return .object(members)
}

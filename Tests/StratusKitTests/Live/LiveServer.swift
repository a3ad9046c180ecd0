import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StratusEngine
import StratusKit
import StratusServer
import StratusSQLite
import StratusTestSupport
import StratusStore
import Synchronization

/// A real Stratus server in this test process: SQLite in a temporary folder, the Hummingbird
/// application on a loopback port the system picks. One server serves every live test; each
/// test gets its own container (and user), so tests do not see each other's records.
final class LiveServer: Sendable {
    let baseURL: URL
    let engine: Engine
    /// The server's data folder (blobs under `blobs/`).
    let folder: URL
    private let group: ServiceGroup

    private init(baseURL: URL, engine: Engine, folder: URL, group: ServiceGroup) {
        self.baseURL = baseURL
        self.engine = engine
        self.folder = folder
        self.group = group
    }

    /// The shared server, started on first use.
    static func shared() async throws -> LiveServer { try await starting.value }

    private static let starting = Task { try await LiveServer.start() }

    /// A server of the test's own, for tests that change server-wide state (compacting every
    /// container's change log) and so must not share the server with tests running alongside.
    /// `rateLimits` makes the server throttle as an operator's would.
    static func dedicated(rateLimits: RateLimitConfiguration = RateLimitConfiguration()) async throws -> LiveServer {
        try await start(rateLimits: rateLimits)
    }

    private static func start(rateLimits: RateLimitConfiguration = RateLimitConfiguration()) async throws -> LiveServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratuskit-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "stratuskit-live")
        logger.logLevel = .warning
        let storage = try await TestBackend.open(folder: folder, logger: logger)
        let engine = Engine(storage: storage, secret: Array(repeating: 9, count: 32), logger: logger)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let blobs = folder.appendingPathComponent("blobs")
        let assets = AssetConfiguration(blobs: FileBlobStore(root: blobs), spoolFolder: blobs.appendingPathComponent("incoming"))
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, rateLimits: rateLimits)
        configuration.functions = StratusFunctionsLiveTests.functions
        let app = makeStratusApplication(
            engine: engine, configuration: configuration,
            assets: assets, logger: logger
        ) { port in portContinuation.yield(port) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: storage), .init(service: app)], gracefulShutdownSignals: [], logger: logger))
        Task { try await group.run() }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CKError(.networkUnavailable) }
        return LiveServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, engine: engine, folder: folder, group: group)
    }

    /// A fresh container on the server, with a signed-in user unless `signedIn` is false.
    func makeContainer(
        signedIn: Bool = true, transport: (any StratusTransport)? = nil,
        maximumRetries: Int = 3
    ) async throws -> CKContainer {
        let identifier = "iCloud.test.kit.\(UUID().uuidString.prefix(8).lowercased())"
        let apiToken = try await engine.createContainer(identifier)
        let webAuthToken = signedIn ? try await engine.createUser(name: "tester", container: identifier).webAuthToken : nil
        var configuration = StratusConfiguration(
            serverURL: baseURL, containerIdentifier: identifier, apiToken: apiToken,
            webAuthToken: webAuthToken, transport: transport ?? URLSessionTransport(),
            maximumRetries: maximumRetries, maximumRetryDelay: 2)
        // Each container downloads assets into its own cache, so a test sees only its downloads.
        configuration.assetCacheFolder = assetCacheFolder(identifier)
        let container = CKContainer(configuration: configuration)
        configurations.withLock { $0[identifier] = configuration }
        return container
    }

    private let configurations = Mutex<[String: StratusConfiguration]>([:])

    /// How a container made by ``makeContainer(signedIn:transport:maximumRetries:)`` reaches the server.
    func configuration(of container: CKContainer) -> StratusConfiguration? {
        configurations.withLock { $0[container.containerIdentifier ?? ""] }
    }

    /// Where a container made here downloads its assets.
    func assetCacheFolder(of container: CKContainer) -> URL { assetCacheFolder(container.containerIdentifier ?? "") }

    private func assetCacheFolder(_ identifier: String) -> URL { folder.appendingPathComponent("cache-\(identifier)") }

    /// The API token of a container made by ``makeContainer(signedIn:transport:maximumRetries:)``.
    func apiToken(of container: CKContainer) -> String? { configuration(of: container)?.apiToken }

    /// The same container as seen by another user of it (`webAuthToken` nil: nobody signed in).
    func sameContainer(as container: CKContainer, webAuthToken: String?) -> CKContainer? {
        guard var configuration = configuration(of: container) else { return nil }
        configuration.webAuthToken = webAuthToken
        return CKContainer(configuration: configuration)
    }

    /// The same container and signed-in user as seen from another device (its own client).
    func anotherDevice(of container: CKContainer) -> CKContainer? {
        configuration(of: container).map { CKContainer(configuration: $0) }
    }
}

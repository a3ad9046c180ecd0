import Hummingbird
import Logging
import NIOCore
import StratusEngine

/// The concrete Hummingbird application type Stratus serves.
public typealias StratusApplication = Application<StratusResponder>

/// Builds the Stratus HTTP application for `engine`.
///
/// The executable runs it as a `Service` in its `ServiceGroup`; tests drive it through
/// `app.test(.router)` without a socket.
///
/// - Parameter onListening: called once the socket is bound, with the port actually bound (the
///   one the system picked when `configuration.port` is 0).
/// - Parameter assets: where asset bytes are kept; `nil` serves no asset routes.
/// - Parameter idlePoller: told of every request (run it as a service of its own); `nil` for none.
public func makeStratusApplication(
    engine: Engine, configuration: ServerConfiguration, assets: AssetConfiguration? = nil,
    idlePoller: IdlePoller? = nil, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> StratusApplication {
    // Connections are capped below the descriptor limit and timed out when slow or idle: see
    // Connections/ConnectionWatch.swift.
    var onRefused: (@Sendable () -> Void)?
    if let instruments = configuration.metrics?.operations { onRefused = { instruments.connectionRefused() } }
    let registry = ConnectionRegistry(limits: configuration.connections, onRefused: onRefused)
    return Application(
        responder: makeStratusResponder(engine: engine, configuration: configuration, assets: assets, idlePoller: idlePoller, logger: logger),
        server: .stratusHTTP1(limits: configuration.connections, registry: registry),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Stratus",
            availableConnectionsDelegate: registry.acceptGate),
        onServerRunning: { channel in
            await onListening(channel.localAddress?.port ?? configuration.port)
        },
        logger: logger)
}

/// Every route of this server: database requests dispatched directly, the rest through the router.
public func makeStratusResponder(
    engine: Engine, configuration: ServerConfiguration, assets: AssetConfiguration? = nil,
    idlePoller: IdlePoller? = nil, logger: Logger
) -> StratusResponder {
    let handler = DatabaseRequestHandler(
        engine: engine, configuration: configuration, logger: logger,
        rateLimiter: RateLimiter(
            configuration: configuration.rateLimits,
            shared: engine.sharesStateWithOtherInstances ? engine.takeRateTokens : nil))
    // Browser clients (CloudKit JS) read responses cross-origin; each API token says from where.
    let originPolicy = OriginPolicyMiddleware(engine: engine)
    let router = makeStratusRouter(
        engine: engine, configuration: configuration, handler: handler, originPolicy: originPolicy,
        assets: assets, logger: logger)
    configuration.metrics?.operations.attach(engine)
    let observers = configuration.requestObservers + (configuration.metrics.map { [$0] } ?? [])
    let observation = observers.isEmpty ? nil : RequestObservation(observers: observers, anonymizer: configuration.callerAnonymizer)
    return StratusResponder(
        router: router.buildResponder(), database: handler, originPolicy: originPolicy, idlePoller: idlePoller,
        observation: observation)
}

/// The router: every route except GET/POST database requests, which `StratusResponder` answers
/// itself (a database path it cannot split gets the router's "no endpoint" answer).
func makeStratusRouter(
    engine: Engine, configuration: ServerConfiguration, handler: DatabaseRequestHandler,
    originPolicy: OriginPolicyMiddleware, assets: AssetConfiguration?, logger: Logger
) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: originPolicy)
    // For load balancers and orchestrators: the process is up and serving HTTP. It touches no
    // database, so it is also the cheapest request this server answers (the benchmark's floor).
    router.get("/health") { _, _ in CloudKitResponse.json(.object(["status": .string("ok")]), uuid: CloudKitResponse.newRequestUUID()) }
    // For a load balancer deciding where to send traffic: see ReadinessCheck.
    router.get("/ready") { _, _ in await ReadinessCheck(engine: engine, blobs: assets?.blobs).respond() }
    router.addOpenAPIRoute()
    if let metrics = configuration.metrics, let token = configuration.metricsToken {
        MetricsRoute.add(to: router, metrics: metrics, token: token)
    }
    addNotificationRoutes(to: router, handler: handler)
    SignInRoutes(
        engine: engine, hasher: BcryptHasher(cost: configuration.passwordHashCost),
        maximumBodyBytes: configuration.maximumBodyBytes,
        identityProvider: configuration.identityProvider.map(IdentityTokenVerifier.init)
    ).add(to: router)
    router.addAssetRoutes(engine: engine, assets: assets, metrics: configuration.metrics?.operations, logger: logger)
    SharePage(engine: engine).add(to: router)
    FunctionRequestHandler(database: handler, functions: configuration.functions).add(to: router)
    ConsoleRoutes(engine: engine, configuration: configuration, assets: assets).add(to: router)
    for method in [HTTPRequest.Method.get, .post] {
        router.on("/**", method: method) { request, _ in
            CloudKitResponse.error(
                CloudKitError(.notFound, "no endpoint at \(request.uri.path); CloudKit Web Services paths look like /database/1/{container}/{environment}/{database}/records/query"),
                uuid: CloudKitResponse.newRequestUUID())
        }
    }
    return router
}

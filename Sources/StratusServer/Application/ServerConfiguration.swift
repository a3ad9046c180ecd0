/// How a Stratus server listens and how it describes itself to clients.
public struct ServerConfiguration: Sendable {
    /// Interface to bind, e.g. `127.0.0.1` or `0.0.0.0`.
    public var host: String
    /// TCP port; `0` lets the system pick a free one.
    public var port: Int
    /// The address clients use to reach this server (e.g. `https://ck.example.com`), used to build
    /// the sign-in `redirectURL`. When `nil`, it is derived from each request's Host header.
    public var publicBaseURL: String?
    /// Largest request body accepted, in bytes.
    public var maximumBodyBytes: Int
    /// How long a web-courier poll waits for a notification before answering with an empty body.
    public var courierTimeout: Duration
    /// Request budgets per API token, user and server-to-server key.
    public var rateLimits: RateLimitConfiguration
    /// bcrypt work factor for account passwords (2^cost rounds).
    public var passwordHashCost: UInt8
    /// An OpenID Connect provider whose identity tokens sign users in (`POST /signin/oidc`).
    public var identityProvider: OIDCConfiguration?
    /// The connection cap and the idle, header, body and write timeouts.
    public var connections: ConnectionLimits
    /// Told of every request once its response is ready (access log, metrics, telemetry).
    public var requestObservers: [any RequestObserver] = []
    /// What the console's request log keeps (`RequestJournal`; shown on the Logs screen).
    public var requestLogRetention = RequestLogRetention()
    /// Hashes callers for the observers' summaries.
    public var callerAnonymizer: CallerAnonymizer = .random()
    /// Request metrics; with `metricsToken` also served at `GET /metrics` on this port.
    public var metrics: ServerMetrics?
    /// The bearer token `GET /metrics` on the main port asks for; nil serves no such route.
    public var metricsToken: String?
    /// How long a web console sign-in lasts (Console/ConsoleSessions.swift).
    public var consoleSessionSeconds: Double = 8 * 3600
    /// Served at `/functions/1/{container}/{environment}/{name}` (none unless an app registers some).
    public var functions = ServerFunctions()

    public init(
        host: String = "127.0.0.1", port: Int = 8080, publicBaseURL: String? = nil,
        maximumBodyBytes: Int = 16 * 1024 * 1024, courierTimeout: Duration = .seconds(30),
        rateLimits: RateLimitConfiguration = RateLimitConfiguration(), passwordHashCost: UInt8 = 10,
        identityProvider: OIDCConfiguration? = nil,
        connections: ConnectionLimits = ConnectionLimits(descriptorLimit: DescriptorLimit.current())
    ) {
        self.identityProvider = identityProvider
        self.connections = connections
        self.rateLimits = rateLimits
        self.passwordHashCost = passwordHashCost
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.maximumBodyBytes = maximumBodyBytes
        self.courierTimeout = courierTimeout
    }
}

import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StratusEngine
import StratusPostgres
import StratusS3
import StratusServer
import StratusSQLite
import StratusStore

/// `stratus serve`: runs the server until SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the server (the default command).")

    @Option(help: ArgumentHelp("Interface to bind (env STRATUS_HOST; default 127.0.0.1).", valueName: "host"))
    var host: String?
    @Option(help: ArgumentHelp("Port to listen on; 0 picks a free one (env STRATUS_PORT; default 8080).", valueName: "port"))
    var port: Int?
    @Option(help: ArgumentHelp("Days deletions stay fetchable through change feeds; older sync tokens must refetch (env STRATUS_TOMBSTONE_DAYS; default 30).", valueName: "days"))
    var tombstoneDays: Double?
    @Option(
        help: ArgumentHelp(
            "Requests per second each user and server key may make on average (an API token's anonymous callers share 20 times that); 0 turns limits off (env STRATUS_RATE_LIMIT; default 50).",
            valueName: "n"))
    var rateLimit: Double?
    @Option(help: ArgumentHelp("Requests each budget may make in a burst (env STRATUS_RATE_BURST; default 500).", valueName: "n"))
    var rateBurst: Double?
    @Option(help: ArgumentHelp("Issuer of a trusted OpenID Connect provider, e.g. https://appleid.apple.com (needs --oidc-audience and --oidc-jwks).", valueName: "url"))
    var oidcIssuer: String?
    @Option(help: ArgumentHelp("This app's client ID at the OIDC provider (the tokens' aud).", valueName: "client-id"))
    var oidcAudience: String?
    @Option(help: ArgumentHelp("File holding the provider's JSON Web Key Set.", valueName: "file"))
    var oidcJWKS: String?
    @Option(
        name: .customLong("idle-poll-us"),
        help: ArgumentHelp(
            "Microseconds the CPUs keep polling after a request instead of halting, which saves the wake-up on virtual machines; 0 turns it off (env STRATUS_IDLE_POLL_US; default 1000). Linux only; pollers use only otherwise idle CPU.",
            valueName: "n"))
    var idlePollMicroseconds: Int?
    @Option(
        help: ArgumentHelp(
            "What a signed-in user's web auth token does once a response carried its replacement: 'session' keeps it working until sign-out or expiry, as Apple's service does; 'single-use' stops it (env STRATUS_WEB_AUTH_TOKENS; default session).",
            valueName: "policy"))
    var webAuthTokens: String?
    @Option(help: ArgumentHelp("Minutes a web console sign-in lasts (env STRATUS_CONSOLE_SESSION_MINUTES; default 480).", valueName: "minutes"))
    var consoleSessionMinutes: Double?
    @OptionGroup var data: DataOption
    @OptionGroup var assetOptions: AssetOptions
    @OptionGroup var connectionOptions: ConnectionOptions
    @OptionGroup var logOptions: LogOptions
    @OptionGroup var observability: ObservabilityOptions
    @OptionGroup var requestJournal: RequestJournalOptions
    @Option(help: ArgumentHelp("Seconds a SIGTERM waits for requests in flight before cancelling them (env STRATUS_SHUTDOWN_TIMEOUT; default 30).", valueName: "seconds"))
    var shutdownTimeout: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let host = host ?? environment["STRATUS_HOST"] ?? "127.0.0.1"
        let port =
            try port ?? ServeCommand.wholeNumber(
                "STRATUS_PORT", in: environment,
                mustBe: "a port number; use 0…65535 (0 picks a free port)") ?? 8080
        guard (0...65535).contains(port) else {
            Console.error("error: port \(port) is out of range; use 0…65535 (0 picks a free port)")
            throw ExitCode.failure
        }
        let pollWindow =
            try idlePollMicroseconds
            ?? ServeCommand.wholeNumber("STRATUS_IDLE_POLL_US", in: environment, atLeast: 0, mustBe: "a whole number of 0 or more")
            ?? 1000
        guard (0...IdlePoller.maximumWindowMicroseconds).contains(pollWindow) else {
            Console.error("error: --idle-poll-us must be 0 (off) to \(IdlePoller.maximumWindowMicroseconds) (one second); the default is 1000")
            throw ExitCode.failure
        }
        let tokenPolicyName = webAuthTokens ?? environment["STRATUS_WEB_AUTH_TOKENS"] ?? WebAuthTokenPolicy.session.rawValue
        guard let tokenPolicy = WebAuthTokenPolicy(rawValue: tokenPolicyName) else {
            Console.error("error: --web-auth-tokens is '\(tokenPolicyName)'; use \(WebAuthTokenPolicy.allCases.map(\.rawValue).joined(separator: " or "))")
            throw ExitCode.failure
        }
        let logger = try logOptions.makeLogger(defaultLevel: .info)
        // Before anything opens: a refused setting stops the start with nothing to shut down.
        let traceExport: (any Service)?
        do {
            traceExport = try TraceExport.bootstrap(environment: environment, logger: logger)
        } catch {
            Console.error("error: traces cannot be exported: \(error)")
            throw ExitCode.failure
        }
        let shutdownSeconds =
            try shutdownTimeout
            ?? ServeCommand.wholeNumber("STRATUS_SHUTDOWN_TIMEOUT", in: environment, atLeast: 1, mustBe: "a whole number of seconds, 1 or more")
            ?? 30
        let retentionDays = tombstoneDays ?? environment["STRATUS_TOMBSTONE_DAYS"].flatMap(Double.init) ?? 30
        guard retentionDays > 0 else {
            Console.error("error: the tombstone retention must be more than 0 days")
            throw ExitCode.failure
        }
        let folder = data.folder
        // The hooks, functions and jobs of an app built on StratusApp (none for `stratus` itself).
        let logic = Stratus.installed.withLock { $0 }
        var limits = EngineLimits()
        try assetOptions.apply(to: &limits)
        let assets = try assetOptions.configuration(folder)
        let (opened, engine, owesWelcome) = try await reportingErrors {
            try folder.create()
            let onPostgres = try data.databaseURL() != nil
            // SQLite: a new data folder owes the welcome. PostgreSQL: a database without any
            // container does (whichever instance creates it prints it).
            let folderOwesWelcome = onPostgres ? false : try DefaultContainer.prepare(in: folder)
            if let s3 = assets.blobs as? S3BlobStore { try await s3.createBucketIfMissing() }
            let opened = try await openStorage(data, logger: logger)
            if onPostgres, assets.blobs is FileBlobStore, environment["STRATUS_BLOBS_SHARED"] != "1" {
                logger.warning(
                    "asset files are kept in \(folder.path)/blobs: every instance on this database must see the same folder (a shared mount; then set STRATUS_BLOBS_SHARED=1 to silence this), or keep assets in S3 (STRATUS_S3_BUCKET)"
                )
            }
            let engine = Engine(
                storage: opened.storage, signingKeys: opened.signingKeys, signingKeySource: opened.signingKeySource,
                limits: limits, webAuthTokenPolicy: tokenPolicy, hooks: logic.hooks, logger: logger)
            var owesWelcome = folderOwesWelcome
            if let postgres = opened.postgres { owesWelcome = try await !postgres.hasContainers() }
            return (opened, engine, owesWelcome)
        }
        var configuration = ServerConfiguration(host: host, port: port)
        configuration.functions = logic.functions
        configuration.connections = try connectionOptions.limits(descriptorLimit: DescriptorLimit.raiseToHardLimit())
        configuration.rateLimits = RateLimitConfiguration(
            perSecond: rateLimit ?? environment["STRATUS_RATE_LIMIT"].flatMap(Double.init) ?? 50,
            burst: rateBurst ?? environment["STRATUS_RATE_BURST"].flatMap(Double.init) ?? 500)
        configuration.identityProvider = try await reportingErrors { try await identityProvider() }
        let sessionMinutes = consoleSessionMinutes ?? environment["STRATUS_CONSOLE_SESSION_MINUTES"].flatMap(Double.init) ?? 480
        guard sessionMinutes > 0 else {
            Console.error("error: the console session length must be more than 0 minutes")
            throw ExitCode.failure
        }
        configuration.consoleSessionSeconds = sessionMinutes * 60
        configuration.callerAnonymizer = .derived(fromSecret: engine.signingKeys.current)
        let (metrics, metricsPort) = try observability.apply(to: &configuration, logger: logger)
        let journal = try requestJournal.journal(engine: engine, configuration: &configuration, logger: logger)
        let metricsHost = observability.host
        var metricsServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let metrics, let metricsPort {
            metricsServices.append(
                .init(
                    service: makeMetricsApplication(metrics: metrics, host: metricsHost, port: metricsPort, logger: logger) { bound in
                        Console.out("metrics on http://\(ServeCommand.urlHost(metricsHost)):\(bound)/metrics")
                    }))
        }
        let idlePoller = pollWindow > 0 ? IdlePoller(window: .microseconds(pollWindow), logger: logger) : nil
        let app = makeStratusApplication(
            engine: engine, configuration: configuration, assets: assets, idlePoller: idlePoller,
            logger: logger
        ) { boundPort in
            let base = "http://\(ServeCommand.urlHost(host)):\(boundPort)"
            if owesWelcome {
                do {
                    let container = try await DefaultContainer.create(on: engine, in: folder)
                    for line in container.welcomeLines(baseURL: base) { Console.out(line) }
                    // The web console's first operator signs in through this link (once).
                    Console.out("console (one-time sign-in link): \(base)/console/link?token=\(try await engine.createConsoleLink())")
                } catch {
                    Console.error("error: could not create the default container (\(error)); create one with `stratus container create ID --data \(folder.path)`")
                }
            }
            Console.out("listening on \(base)")
        }
        let pushDelivery = try await reportingErrors { try makePushDelivery(storage: opened.storage, environment: environment, logger: logger) }
        // A ServiceGroup stops services in reverse order. The trace exporter comes first and stops
        // last, once the spans of the last requests have ended; then storage, so the database
        // closes only after everything that writes to it; then the request journal, which writes
        // the last requests once the HTTP server after it has finished them.
        var groupConfiguration = ServiceGroupConfiguration(
            services: (traceExport.map { [.init(service: $0)] } ?? []) + [
                .init(service: opened.storage, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
            ] + (journal.map { [.init(service: $0)] } ?? []) + [
                .init(service: EventLoopAffineService(app), successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
                .init(service: ChangeLogCompactor(engine: engine, retention: retentionDays * 86_400, logger: logger)),
                .init(service: BlobCollector(engine: engine, assets: assets, gracePeriod: assetOptions.gracePeriod, logger: logger)),
                // A rotation by `stratus secret rotate`: PostgreSQL announces it to every instance
                // at once (this is the fallback); the data folder's files are watched by rereading.
                .init(service: SigningKeyRefresher(engine: engine, interval: opened.postgres == nil ? .seconds(1) : .seconds(10))),
                .init(service: pushDelivery),
                // The app's own logic (StratusApp): queued after hooks and scheduled jobs.
                .init(service: HookOutboxRunner(engine: engine, logger: logger)),
                .init(service: ScheduledJobRunner(engine: engine, jobs: logic.jobs, logger: logger)),
            ] + (idlePoller.map { [.init(service: $0)] } ?? [])
                // Other instances' revocations, subscription and schema changes and queued frames.
                + (opened.postgres.map { [.init(service: PostgresFleetListener(url: $0.url, logger: logger) { engine.apply($0) })] } ?? [])
                + metricsServices,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        // Past the deadline, requests still running are cancelled and the database closes.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(shutdownSeconds)
        // A service that ignores the cancellation too stops the process (ServiceLifecycle traps
        // with "Cancellation took longer than allowed") rather than leaving it running for good.
        groupConfiguration.maximumCancellationDuration = .seconds(15)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch let error as IOError {
            Console.error("error: \(ServeCommand.describe(error, host: host, port: port))")
            throw ExitCode.failure
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
    }

    /// A whole number from the environment, or nil when unset; otherwise the start stops with
    /// "NAME='value' is not <mustBe>".
    static func wholeNumber(
        _ name: String, in environment: [String: String], atLeast minimum: Int = .min,
        mustBe what: String
    ) throws -> Int? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        guard let number = Int(value), number >= minimum else {
            Console.error("error: \(name)='\(value)' is not \(what)")
            throw ExitCode.failure
        }
        return number
    }

    /// A socket error in words, with what to do about it.
    static func describe(_ error: IOError, host: String, port: Int) -> String {
        switch error.errnoCode {
        case EADDRINUSE:
            return "cannot listen on \(host):\(port): the port is in use; stop the other server or pick another port with --port or STRATUS_PORT (0 picks a free one)"
        case EACCES:
            return "cannot listen on \(host):\(port): permission denied; ports below 1024 need privileges, pick another with --port"
        case EADDRNOTAVAIL:
            return "cannot listen on \(host):\(port): this machine has no such address; use --host 127.0.0.1 or 0.0.0.0"
        default:
            return "cannot listen on \(host):\(port): \(error)"
        }
    }

    /// IPv6 literals need brackets in a URL.
    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// The OIDC provider from --oidc-*, checked now so a bad key set stops the start.
    func identityProvider() async throws -> OIDCConfiguration? {
        let given = [oidcIssuer, oidcAudience, oidcJWKS].compactMap { $0 }
        guard !given.isEmpty else { return nil }
        guard let oidcIssuer, let oidcAudience, let oidcJWKS else {
            throw CloudKitError.badRequest("--oidc-issuer, --oidc-audience and --oidc-jwks go together; give all three")
        }
        guard let jwks = try? String(contentsOfFile: oidcJWKS, encoding: .utf8) else {
            throw CloudKitError.badRequest("cannot read \(oidcJWKS); save the provider's JWKS (e.g. https://appleid.apple.com/auth/keys) to a file")
        }
        let provider = OIDCConfiguration(issuer: oidcIssuer, audience: oidcAudience, jwksJSON: jwks)
        try await provider.validate()
        return provider
    }
}

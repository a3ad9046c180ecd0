import Hummingbird
import StratusEngine

/// Sends CKWS database requests (`GET`/`POST /database/1/{container}/{environment}/{database}/…`)
/// straight to their handler, through the same origin policy as every route; everything else
/// goes through the router. Resolving that path in the router's trie showed in profiles of
/// one-record lookups, and it is the path almost every request takes.
public struct StratusResponder: HTTPResponder {
    public typealias Context = BasicRequestContext
    let router: RouterResponder<BasicRequestContext>
    let database: DatabaseRequestHandler
    let originPolicy: OriginPolicyMiddleware
    let idlePoller: IdlePoller?
    /// Delivers a `RequestSummary` of every request to the configured observers; nil without any.
    let observation: RequestObservation?

    public func respond(to request: Request, context: Context) async throws -> Response {
        guard let observation else { return try await respondTraced(to: request, context: context) }
        return try await observation.observe(request) { try await respondTraced(to: request, context: context) }
    }

    /// Inside the observation, so the request span and the summary read the same `RequestRecord`.
    private func respondTraced(to request: Request, context: Context) async throws -> Response {
        guard TraceSpans.isEnabled else { return try await respondUnobserved(to: request, context: context) }
        return try await RequestSpan.trace(request) { try await respondUnobserved(to: request, context: context) }
    }

    private func respondUnobserved(to request: Request, context: Context) async throws -> Response {
        // A pipelined request is answered on the shared pool, not on the event loop: see
        // RequestPhaseHandler.
        if request.headers[RequestPhaseHandler.pipelinedMarker] != nil {
            return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await respondHere(to: request, context: context)
            }
        }
        return try await respondHere(to: request, context: context)
    }

    private func respondHere(to request: Request, context: Context) async throws -> Response {
        idlePoller?.noteRequest()
        guard request.method == .post || request.method == .get,
            let route = DatabaseRoute(path: request.uri.path)
        else {
            do {
                return try await router.respond(to: request, context: context)
            } catch {
                // A broken body (bad chunk, cut short) is the client's error, not the server's.
                guard let framing = HTTPFramingError.classify(error) else { throw error }
                return CloudKitResponse.error(framing, uuid: CloudKitResponse.newRequestUUID())
            }
        }
        // A body declared larger than the limit is refused before any of it is read (the
        // connection then closes rather than read the rest).
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > database.configuration.maximumBodyBytes {
            return CloudKitResponse.error(
                RequestBodyReader.tooLarge(maximumBytes: database.configuration.maximumBodyBytes),
                uuid: CloudKitResponse.newRequestUUID())
        }
        // Only database requests count as in flight: they are short, while a courier long poll
        // or an asset download on the router may stay open for seconds.
        idlePoller?.databaseRequestStarted()
        defer { idlePoller?.databaseRequestFinished() }
        return try await originPolicy.handle(request, context: context) { request, _ in
            await database.handle(request) { () throws(CloudKitError) -> DatabasePath in
                try DatabasePath(
                    container: route.container, environment: route.environment,
                    database: route.database, operation: route.operation)
            }
        }
    }
}

/// The parts of `/database/1/{container}/{environment}/{database}/{operation…}`, unvalidated
/// (`DatabasePath` validates them). Empty segments are skipped, as the router does.
struct DatabaseRoute: Equatable {
    static let prefix = "/database/1/"
    var container: String
    var environment: String
    var database: String
    var operation: String

    init?(path: String) {
        guard path.utf8.starts(with: DatabaseRoute.prefix.utf8) else { return nil }
        let rest = path.utf8.dropFirst(DatabaseRoute.prefix.utf8.count)
        let segments = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        guard segments.count >= 4 else { return nil }
        container = String(Substring(segments[0]))
        environment = String(Substring(segments[1]))
        database = String(Substring(segments[2]))
        operation = segments[3...].map { String(Substring($0)) }.joined(separator: "/")
    }
}

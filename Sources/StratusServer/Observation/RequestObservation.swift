import Hummingbird

/// Wraps the answering of one request so every observer gets its `RequestSummary`: times it,
/// binds a `RequestRecord` the handlers note what they learn in, and summarises the response
/// (or the error the responder throws, which Hummingbird turns into a response after us).
struct RequestObservation: Sendable {
    let observers: [any RequestObserver]
    let anonymizer: CallerAnonymizer

    func observe(_ request: Request, respond: () async throws -> Response) async throws -> Response {
        let record = RequestRecord()
        let start = ContinuousClock.now
        do {
            let response = try await RequestRecord.$current.withValue(record) { try await respond() }
            deliver(request, record: record, status: Int(response.status.code), latency: .now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            deliver(request, record: record, status: Int(status), latency: .now - start)
            throw error
        }
    }

    private func deliver(_ request: Request, record: RequestRecord, status: Int, latency: Duration) {
        let facts = record.snapshot
        let route = facts.operation == nil ? RouteKind(path: request.uri.path) : nil
        let summary = RequestSummary(
            uuid: facts.uuid ?? CloudKitResponse.newRequestUUID(),
            operation: facts.operation ?? route?.operation ?? .other,
            endpoint: facts.endpoint ?? route?.endpoint ?? "other",
            container: facts.container, database: facts.database, environment: facts.environment,
            status: status, latency: latency, serverErrorCode: facts.serverErrorCode,
            caller: facts.rateLimitKey.map(anonymizer.id(for:)),
            isAPIRequest: facts.operation != nil || route?.isAPI != false)
        for observer in observers { observer.observe(summary) }
    }
}

/// The operation kind and a bounded endpoint name of a request no database handler described:
/// sign-in, the courier, asset transfers and the server's own routes.
struct RouteKind: Equatable {
    var operation: RequestSummary.Operation
    var endpoint: String
    /// False for a path no route of this server answers (`/favicon.ico`, `/robots.txt`).
    var isAPI = true

    init(path: String) {
        switch path {
        case "/signin", "/signout", "/signin/oidc":
            (operation, endpoint) = (.signIn, path)
        case "/health", "/ready", "/metrics", "/openapi.yaml":
            (operation, endpoint) = (.other, path)
        case "/", "/console":
            (operation, endpoint) = (.other, "/console")
        case _ where path.hasPrefix("/console/"):
            (operation, endpoint) = (.other, "/console")
        case _ where path.hasPrefix("/webcourier/"):
            (operation, endpoint) = (.courier, path.hasSuffix("/events") ? "/webcourier/events" : "/webcourier")
        case _ where path.hasPrefix("/assets/1/upload/"):
            (operation, endpoint) = (.assets, "/assets/upload")
        case _ where path.hasPrefix("/assets/1/download/"):
            (operation, endpoint) = (.assets, "/assets/download")
        case _ where path.hasPrefix("/database/") || path.hasPrefix("/device/"):
            // A database path too malformed to name an operation.
            (operation, endpoint) = (.other, "/database")
        default:
            (operation, endpoint, isAPI) = (.other, "other", false)
        }
    }
}

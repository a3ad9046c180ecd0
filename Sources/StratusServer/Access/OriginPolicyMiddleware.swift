import HTTPTypes
import Hummingbird
import StratusEngine

/// CORS per API token. Preflights (`OPTIONS`) are answered here: allowed when the request's
/// `ckAPIToken` allows the origin (or when it names no token, so errors stay readable), refused
/// with 403 otherwise. Other responses reflect the origin; the request handler has already refused
/// (ACCESS_DENIED) any request whose token does not allow its origin, so a refused origin can
/// neither run a request nor read data. `text/plain` POSTs need no preflight, as CloudKit JS sends.
struct OriginPolicyMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let engine: Engine

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin] else { return try await next(request, context) }
        if request.method == .options {
            if try await !originAllowed(origin, request: request) {
                return Response(status: .forbidden, headers: [.vary: "Origin"])
            }
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = "GET, POST, OPTIONS"
            headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "Accept, Content-Type, Origin"
            headers[.accessControlMaxAge] = "600"
            headers[.vary] = "Origin"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = CloudKitResponse.exposedHeaders
        response.headers[.vary] = "Origin"
        return response
    }

    /// The token's setting for `/database/1/{container}/…?ckAPIToken=…` paths; other paths allow.
    func originAllowed(_ origin: String, request: Request) async throws -> Bool {
        let segments = request.uri.path.split(separator: "/")
        guard segments.count > 2, segments[0] == "database" || segments[0] == "device",
            let token = QueryCredentials(rawQuery: request.uri.query).apiToken,
            let settings = await engine.apiTokenSettings(token, container: String(segments[2]))
        else { return true }
        return settings.allows(origin: origin)
    }
}

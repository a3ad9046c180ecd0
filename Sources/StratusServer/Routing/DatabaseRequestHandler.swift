import Foundation
import Hummingbird
import Logging
import StratusEngine
import StratusWire
import StratusModel

/// Answers one `/database/1/…` request: validates the path, authenticates, reads the body, runs
/// the engine operation and renders the result or the error. It never throws: every failure
/// becomes a CKWS error dictionary, and anything unexpected a generic INTERNAL_ERROR whose
/// details stay in the server log.
struct DatabaseRequestHandler: Sendable {
    let engine: Engine
    let configuration: ServerConfiguration
    let logger: Logger
    let rateLimiter: RateLimiter

    /// Answers a request whose path `makePath` validates. Every response to a request that
    /// carried a rotating web auth token returns its replacement, errors included.
    func handle(_ request: Request, path makePath: () throws(CloudKitError) -> DatabasePath) async -> Response {
        await answer(request, container: { try? makePath().container }) { uuid, headers in
            try await run(request, uuid: uuid, path: makePath, headers: &headers)
        }
    }

    /// Runs `body` and renders whatever it throws as a CKWS error dictionary.
    func answer(
        _ request: Request, container: () -> String?, _ body: (_ uuid: String, _ headers: inout HTTPFields) async throws -> Response
    ) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        var extraHeaders = HTTPFields()
        var response: Response
        do {
            response = try await body(uuid, &extraHeaders)
        } catch let error as CloudKitError {
            var error = error
            if error.code == .authenticationRequired, error.redirectURL == nil, let container = container() {
                error.redirectURL = signInURL(request, container: container)
            }
            response = CloudKitResponse.error(error, uuid: uuid)
        } catch let failure as AtomicBatchFailure {
            RequestRecord.current?.note(serverErrorCode: ServerErrorCode.atomicError.rawValue)
            response = CloudKitResponse.json(failure.body(uuid: uuid), status: .badRequest, uuid: uuid)
        } catch let error as WireError {
            response = CloudKitResponse.error(.wire(error), uuid: uuid)
        } catch let error as JSONParseError {
            response = CloudKitResponse.error(.badRequest(error.description), uuid: uuid)
        } catch let error where HTTPFramingError.isFraming(error) {
            response = CloudKitResponse.error(HTTPFramingError.badRequest(for: error), uuid: uuid)
        } catch {
            logger.error(
                "request failed with an internal error",
                metadata: [
                    "uuid": .string(uuid), "path": .string(request.uri.path), "error": .string(String(reflecting: error)),
                ])
            response = CloudKitResponse.error(CloudKitError(.internalError, "the server failed to process this request; report request \(uuid) to the server's operator"), uuid: uuid)
        }
        for field in extraHeaders { response.headers.append(field) }
        return response
    }

    func run(
        _ request: Request, uuid: String, path makePath: () throws(CloudKitError) -> DatabasePath,
        headers: inout HTTPFields
    ) async throws -> Response {
        let path = try makePath()
        RequestRecord.current?.note(path)
        let raw: [UInt8] =
            request.method == .post && path.operation.takesBody
            ? try await RequestBodyReader(maximumBytes: configuration.maximumBodyBytes).bytes(from: request.body) : []
        let authenticated = try await admit(
            request, container: path.container, environment: path.environment, scope: path.scope, body: raw, headers: &headers)
        let body: JSONValue = path.operation.takesBody && request.method == .post ? try RequestBodyReader.parse(raw) : .object([:])
        // Every CKWS request body is an object; an array or a bare value must not fall through to
        // an operation's defaults (users/discover would list everyone).
        if body.objectValue == nil {
            throw CloudKitError.badRequest("the body is \(body.kindName); \(path.operation.rawValue) takes a JSON object")
        }
        try ZoneOwnerCheck.check(body, scope: authenticated.scope)
        var scope = authenticated.scope
        scope.assetBaseURL = baseURL(request)
        var result = try await TraceSpans.child("engine \(path.operation.rawValue)") {
            try await path.operation.run(engine, scope: scope, body: body)
        }
        if path.operation == .createToken { result = absoluteCourierURL(result, request: request) }
        return CloudKitResponse.json(result, uuid: uuid)
    }

    /// Authenticates a request and spends its rate-limit budget: the caller's scope, or the
    /// error the client gets (bad credentials, an origin the token does not allow, throttled).
    func admit(
        _ request: Request, container: String, environment: DatabaseEnvironment, scope: DatabaseScope, body raw: [UInt8],
        headers: inout HTTPFields
    ) async throws -> Authenticated {
        let authenticated = try await TraceSpans.child("authenticate") {
            try await engine.authenticate(
                container: container, environment: environment, scope: scope,
                credentials: try RequestCredentialReader.credentials(request, body: raw),
                signInURL: signInURL(request, container: container))
        }
        RequestRecord.current?.note(rateLimitKey: authenticated.rateLimitKey)
        if let replacement = authenticated.replacementWebAuthToken {
            headers[CloudKitResponse.webAuthTokenHeader] = replacement
        }
        if let origin = request.headers[.origin], let token = authenticated.apiToken, !token.allows(origin: origin) {
            throw CloudKitError(
                .accessDenied,
                "this API token does not allow requests from origin \(origin.prefix(200)); add it with `stratus token origins --container \(container) --origin \(origin.prefix(200))`")
        }
        let decision = await rateLimiter.spend(authenticated.rateLimitKey)
        if !rateLimiter.configuration.isUnlimited { RateLimitHeaders.add(decision, to: &headers) }
        guard decision.allowed else {
            throw CloudKitError(
                .throttled,
                "too many requests for this \(RateLimitHeaders.budgetName(authenticated.rateLimitKey)); retry after \(decision.retryAfter) s (limit \(decision.limit) requests, refilling \(Int(rateLimiter.configuration.perSecond)) per second)",
                retryAfter: decision.retryAfter)
        }
        return authenticated
    }

    /// Where a user signs in: the configured public address, else the one the client used.
    func signInURL(_ request: Request, container: String) -> String {
        let trimmed = baseURL(request)
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))) ?? container
        // The API token's handle tells the sign-in page where to deliver the token.
        let handle = QueryCredentials(rawQuery: request.uri.query).apiToken.map { "&token=" + secretDigest($0).prefix(16) } ?? ""
        return "\(trimmed)/signin?container=\(escaped)\(handle)"
    }
}

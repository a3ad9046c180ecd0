import Foundation
import Hummingbird
import Logging
import StratusEngine
import StratusModel

/// Answers one `/database/1/…` request: validates the path, authenticates, reads the body, runs
/// the engine operation and renders the result or the error. It never throws: every failure
/// becomes a CKWS error dictionary, and anything unexpected a generic INTERNAL_ERROR whose
/// details stay in the server log.
struct DatabaseRequestHandler: Sendable {
    let engine: Engine
    let configuration: ServerConfiguration
    let logger: Logger

    func handle(_ request: Request, parameters: Parameters) async -> Response {
        await handle(request) { () throws(CloudKitError) -> DatabasePath in
            try DatabasePath(
                container: parameters.get("container") ?? "",
                environment: parameters.get("environment") ?? "",
                database: parameters.get("database") ?? "",
                operation: parameters.getCatchAll().joined(separator: "/"))
        }
    }

    /// Answers a request whose path `makePath` validates.
    func handle(_ request: Request, path makePath: () throws(CloudKitError) -> DatabasePath) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        do {
            let path = try makePath()
            let credentials = QueryCredentials(rawQuery: request.uri.query)
            var scope = try await engine.authenticate(
                container: path.container, environment: path.environment, scope: path.scope,
                apiToken: credentials.apiToken, webAuthToken: credentials.webAuthToken,
                signInURL: signInURL(request, container: path.container))
            scope.assetBaseURL = baseURL(request)
            let body: JSONValue
            if request.method == .post, path.operation.takesBody {
                body = try await RequestBodyReader(maximumBytes: configuration.maximumBodyBytes).json(from: request.body)
            } else {
                body = .object([:])
            }
            var result = try await path.operation.run(engine, scope: scope, body: body)
            if path.operation == .createToken { result = absoluteCourierURL(result, request: request) }
            return CloudKitResponse.json(result, uuid: uuid)
        } catch let error as CloudKitError {
            return CloudKitResponse.error(error, uuid: uuid)
        } catch let failure as AtomicBatchFailure {
            return CloudKitResponse.json(failure.body, status: .badRequest, uuid: uuid)
        } catch let error as WireError {
            return CloudKitResponse.error(.wire(error), uuid: uuid)
        } catch let error as JSONParseError {
            return CloudKitResponse.error(.badRequest(error.description), uuid: uuid)
        } catch {
            logger.error("request failed with an internal error", metadata: [
                "uuid": .string(uuid), "path": .string(request.uri.path), "error": .string(String(reflecting: error)),
            ])
            return CloudKitResponse.error(CloudKitError(.internalError, "the server failed to process this request; report request \(uuid) to the server's operator"), uuid: uuid)
        }
    }

    /// Where a user signs in: the configured public address, else the one the client used.
    func signInURL(_ request: Request, container: String) -> String {
        let trimmed = baseURL(request)
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))) ?? container
        return "\(trimmed)/signin?container=\(escaped)"
    }
}

import Hummingbird
import Logging
import StratusEngine
import StratusModel

/// Answers `POST /functions/1/{container}/{environment}/{name}`: authenticates like a database
/// request (API token, web auth token, server-to-server key), runs the function with the JSON
/// body, and answers its JSON; errors are CKWS error dictionaries.
struct FunctionRequestHandler: Sendable {
    let database: DatabaseRequestHandler
    let functions: ServerFunctions

    func add(to router: Router<BasicRequestContext>) {
        router.post("/functions/1/:container/:environment/:name") { request, context in
            await handle(
                request, container: context.parameters.get("container") ?? "", environment: context.parameters.get("environment") ?? "",
                name: context.parameters.get("name") ?? "")
        }
    }

    func handle(_ request: Request, container: String, environment rawEnvironment: String, name: String) async -> Response {
        await database.answer(request, container: { container }) { uuid, headers in
            guard let environment = DatabaseEnvironment(rawValue: rawEnvironment) else {
                throw CloudKitError.badRequest("unknown environment '\(rawEnvironment.prefix(80))' in the path; use development or production")
            }
            let raw = try await RequestBodyReader(maximumBytes: database.configuration.maximumBodyBytes).bytes(from: request.body)
            let authenticated = try await database.admit(
                request, container: container, environment: environment, scope: .public, body: raw, headers: &headers)
            guard let function = functions.function(named: name, container: container) else {
                throw CloudKitError(.notFound, "this server has no function named '\(name.prefix(100))' for container \(container)")
            }
            let input: JSONValue = raw.isEmpty ? .object([:]) : try RequestBodyReader.parse(raw)
            var scope = authenticated.scope
            scope.assetBaseURL = database.baseURL(request)
            let context = FunctionContext(engine: database.engine, scope: scope, functionName: name)
            let output: JSONValue
            do {
                output = try await function(input, context)
            } catch let error as CloudKitError {
                throw error
            } catch let rejection as HookRejection {
                throw CloudKitError.badRequest(rejection.reason)
            } catch {
                database.logger.error("function \(name) failed: \(String(reflecting: error))", metadata: ["uuid": .string(uuid)])
                throw CloudKitError(.internalError, "function '\(name)' failed; report request \(uuid) to the server's operator")
            }
            return CloudKitResponse.json(output, uuid: uuid)
        }
    }
}

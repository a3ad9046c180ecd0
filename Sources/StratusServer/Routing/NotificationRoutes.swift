import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import StratusEngine
import StratusModel

/// `/device/1/{container}/{environment}/tokens/{create|register}` (the documented path of the
/// token endpoints; the `/database/1/…/tokens/…` form goes through `DatabaseOperation`), and the
/// web courier: `GET /webcourier/1/{key}` long-polls one frame, `GET /webcourier/1/{key}/events`
/// streams frames as Server-Sent Events.
func addNotificationRoutes(to router: Router<BasicRequestContext>, handler: DatabaseRequestHandler) {
    router.post("/device/1/:container/:environment/tokens/:action") { request, context in
        let parameters = context.parameters
        return await handler.handle(request) { () throws(CloudKitError) -> DatabasePath in
            let action = parameters.get("action") ?? ""
            guard action == "create" || action == "register" else {
                throw CloudKitError(.notFound, "unknown token operation '\(action.prefix(40))'; use tokens/create or tokens/register")
            }
            return try DatabasePath(
                container: parameters.get("container") ?? "", environment: parameters.get("environment") ?? "",
                database: "public", operation: "tokens/\(action)")
        }
    }
    router.get("/webcourier/1/:key") { _, context in
        await handler.pollCourier(key: context.parameters.get("key") ?? "")
    }
    router.get("/webcourier/1/:key/events") { request, context in
        await handler.streamCourier(key: context.parameters.get("key") ?? "", request: request)
    }
}

extension DatabaseRequestHandler {
    /// The base address clients use: the configured public URL, else the request's Host.
    func baseURL(_ request: Request) -> String {
        let base = configuration.publicBaseURL ?? "http://\(request.head.authority ?? "\(configuration.host):\(configuration.port)")"
        return base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    /// tokens/create answers a path; clients need the absolute URL.
    func absoluteCourierURL(_ result: JSONValue, request: Request) -> JSONValue {
        guard var members = result.objectValue, let path = members["webcourierURL"]?.stringValue, path.hasPrefix("/") else { return result }
        members["webcourierURL"] = .string(baseURL(request) + path)
        return .object(members)
    }

    /// One long-poll: exactly one frame (removed from the queue), or an empty 200 body when none
    /// arrived within the courier timeout. An unknown key is a 404 error: stop polling. When the
    /// server shuts down, a waiting poll answers at once with the empty body (poll again).
    func pollCourier(key: String) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        let closed = configuration.metrics?.courierOpened(events: false)
        defer { closed?() }
        do {
            let engine = self.engine, timeout = configuration.courierTimeout
            guard let frame = try await cancelWhenGracefulShutdown({ try await engine.pollWebCourier(courierKey: key, timeout: timeout) }) else {
                return Response(status: .ok, headers: [.contentLength: "0"], body: ResponseBody())
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=UTF-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: frame)))
        } catch let error as CloudKitError {
            return CloudKitResponse.error(error, uuid: uuid)
        } catch is CancellationError where Task.isShuttingDownGracefully {
            return Response(status: .ok, headers: [.contentLength: "0"], body: ResponseBody())
        } catch {
            logger.error("web courier poll failed", metadata: ["uuid": .string(uuid), "error": .string(String(reflecting: error))])
            return CloudKitResponse.error(CloudKitError(.internalError, "the courier failed; report request \(uuid) to the server's operator"), uuid: uuid)
        }
    }

    /// Server-Sent Events: each frame as one `data:` event, removed from the queue only after
    /// its write succeeded — a frame whose write fails because the client went away stays
    /// queued for the next reader. A comment line is the keep-alive after each quiet courier
    /// timeout. `?maxEvents=N` ends the stream after N frames. A server shutting down ends the
    /// stream cleanly (the client reconnects, to another instance).
    func streamCourier(key: String, request: Request) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        let first: CourierFrame?
        do {
            // Checks the key before the stream starts, so an unknown key is a plain 404.
            first = try await engine.peekWebCourier(courierKey: key, timeout: .zero)
        } catch let error as CloudKitError {
            return CloudKitResponse.error(error, uuid: uuid)
        } catch {
            return CloudKitResponse.error(CloudKitError(.internalError, "the courier failed; report request \(uuid) to the server's operator"), uuid: uuid)
        }
        let maxEvents = request.uri.queryParameters.get("maxEvents", as: Int.self)
        let engine = self.engine
        let timeout = configuration.courierTimeout
        let metrics = configuration.metrics
        let body = ResponseBody { writer in
            let closed = metrics?.courierOpened(events: true)
            defer { closed?() }
            var sent = 0
            var next = first
            while !Task.isShuttingDownGracefully {
                if let frame = next {
                    try await writer.write(ByteBuffer(string: "data: \(frame.body)\n\n"))
                    try await engine.acknowledgeWebCourierFrame(courierKey: key, id: frame.id)
                    sent += 1
                    if let maxEvents, sent >= maxEvents { break }
                } else {
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
                do {
                    next = try await cancelWhenGracefulShutdown { try await engine.peekWebCourier(courierKey: key, timeout: timeout) }
                } catch is CancellationError where Task.isShuttingDownGracefully {
                    break
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}

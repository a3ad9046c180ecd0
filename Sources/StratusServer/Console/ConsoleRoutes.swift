import Foundation
import HTTPTypes
import Hummingbird
import StratusEngine
import StratusModel

/// The web console at `/console` (and `/` sends browsers there): sign-in, then one screen per
/// concern. Pages are built on the server from `HTML` values; screens call the engine's own
/// operations, the same code CKWS requests run.
struct ConsoleRoutes: Sendable {
    let engine: Engine
    let hasher: any PasswordHashing
    let sessions: ConsoleSessions
    let assets: AssetConfiguration?
    let journalRetention: RequestLogRetention

    init(engine: Engine, configuration: ServerConfiguration, assets: AssetConfiguration?) {
        self.engine = engine
        self.hasher = BcryptHasher(cost: configuration.passwordHashCost)
        self.sessions = ConsoleSessions(engine: engine, lifetimeMilliseconds: Int64(configuration.consoleSessionSeconds * 1000))
        self.assets = assets
        self.journalRetention = configuration.requestLogRetention
    }

    /// The largest form a console page may post with a file in it (an asset upload).
    static let maximumUploadBytes = 32 * 1024 * 1024

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in ConsoleResponse.redirect(ConsoleURL("/console")) }
        router.get("/console/static/console.css") { _, _ in ConsoleResponse.file(ConsoleStatic.stylesheet, contentType: "text/css; charset=utf-8") }
        router.get("/console/static/console.js") { _, _ in ConsoleResponse.file(ConsoleStatic.script, contentType: "text/javascript; charset=utf-8") }
        ConsoleSignIn(engine: engine, hasher: hasher, sessions: sessions).add(to: router)
        let screens = ConsoleScreens(engine: engine, assets: assets, journalRetention: journalRetention)
        screen(router, "/console", screens.welcome)
        action(router, "/console/welcome/token", screens.welcomeToken)
        screen(router, "/console/records", screens.records)
        screen(router, "/console/record", screens.record)
        screen(router, "/console/record/new", screens.newRecord)
        action(router, "/console/record/save", screens.saveRecord)
        action(router, "/console/record/delete", screens.deleteRecord)
        action(router, "/console/record/asset", screens.uploadAsset)
        screen(router, "/console/zones", screens.zones)
        action(router, "/console/zones/create", screens.createZone)
        action(router, "/console/zones/delete", screens.deleteZone)
        screen(router, "/console/schema", screens.schema)
        screen(router, "/console/schema/ckdb", screens.downloadSchema)
        action(router, "/console/schema/index", screens.addIndex)
        action(router, "/console/schema/field", screens.addField)
        action(router, "/console/schema/index/remove", screens.removeIndex)
        action(router, "/console/schema/grant", screens.grant)
        action(router, "/console/schema/upload", screens.uploadSchema)
        action(router, "/console/schema/deploy", screens.deploy)
        action(router, "/console/schema/reset", screens.resetDevelopment)
        screen(router, "/console/users", screens.users)
        action(router, "/console/users/create", screens.createUser)
        action(router, "/console/users/signout-everywhere", screens.signOutEverywhere)
        action(router, "/console/users/discoverable", screens.setDiscoverable)
        action(router, "/console/users/push-token/delete", screens.deletePushToken)
        screen(router, "/console/tokens", screens.tokens)
        action(router, "/console/tokens/create", screens.createToken)
        action(router, "/console/tokens/revoke", screens.revokeToken)
        action(router, "/console/keys/add", screens.addServerKey)
        action(router, "/console/keys/revoke", screens.revokeServerKey)
        screen(router, "/console/audit", screens.audit)
        screen(router, "/console/telemetry", screens.telemetry)
        screen(router, "/console/logs", screens.logs)
        screen(router, "/console/logs/tail", screens.logTail)
        screen(router, "/console/logs/export", screens.exportLogs)
        router.get("/console/asset/{token}") { request, context in
            let token = context.parameters.get("token") ?? ""
            return await guarded(request, path: "/console/asset", post: false) { console in
                try await screens.asset(console, token: token)
            }
        }
        router.post("/console/signout") { request, _ in
            await guarded(request, path: "/console/signout", post: true) { _ in
                if let cookie = ConsoleSessions.cookie(of: request) { try await engine.endConsoleSession(cookie: cookie) }
                var response = ConsoleResponse.redirect(ConsoleURL("/console/signin"))
                response.headers[.setCookie] = ConsoleSessions.clearCookie
                return response
            }
        }
    }

    func screen(_ router: Router<BasicRequestContext>, _ path: String, _ body: @escaping @Sendable (ConsoleRequest) async throws -> Response) {
        router.get(RouterPath(stringLiteral: path)) { request, _ in await guarded(request, path: path, post: false, body) }
    }

    func action(_ router: Router<BasicRequestContext>, _ path: String, _ body: @escaping @Sendable (ConsoleRequest) async throws -> Response) {
        router.post(RouterPath(stringLiteral: path)) { request, _ in await guarded(request, path: path, post: true, body) }
    }

    /// Signed in, and for a POST a form from a console page of this session: otherwise the
    /// screen does not run.
    func guarded(_ request: Request, path: String, post: Bool, _ body: @Sendable (ConsoleRequest) async throws -> Response) async -> Response {
        do {
            guard let session = try await sessions.session(of: request) else {
                if post {
                    return ConsoleResponse.page(
                        ConsoleLayout.page(
                            title: "Signed out", chrome: nil,
                            """
                            \(ConsoleLayout.notice("Your console session has ended, so nothing was changed. Sign in again and repeat the change.", kind: "error"))
                            <p><a href="/console/signin">Sign in</a></p>
                            """), status: .unauthorized)
                }
                let next = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
                return ConsoleResponse.redirect(ConsoleURL("/console/signin", [("next", next)]))
            }
            var form: [String: String] = [:]
            var list: [(String, String)] = ConsoleQuery.pairs(request.uri.query ?? "")
            var files: [String: MultipartForm.File] = [:]
            if post {
                // A form with a file (an asset upload) comes as multipart/form-data.
                let boundary = request.headers[.contentType].flatMap(MultipartForm.boundary(ofContentType:))
                let bytes = try await RequestBodyReader(maximumBytes: boundary == nil ? 2 * 1024 * 1024 : Self.maximumUploadBytes).bytes(from: request.body)
                var posted = ConsoleQuery.pairs(String(decoding: bytes, as: UTF8.self))
                if let boundary {
                    let multipart = try MultipartForm(body: bytes, boundary: boundary)
                    posted = multipart.fields
                    files = multipart.files
                }
                for (key, value) in posted where form[key] == nil { form[key] = value }
                // The form's values first; the address's query (container, environment) after.
                list = posted + list
                guard ConsoleSessions.mayChange(request, form: form, session: session) else {
                    return ConsoleResponse.page(
                        ConsoleLayout.page(
                            title: "Not changed", chrome: nil,
                            """
                            \(ConsoleLayout.notice("This request did not come from a console page of your session (its security token is missing or wrong, or it was sent from another site), so nothing was changed. Go back, reload the page and try again.", kind: "error"))
                            <p><a href="/console">Back to the console</a></p>
                            """), status: .forbidden)
                }
            }
            let values = Dictionary(list, uniquingKeysWith: { first, _ in first })
            let containers = try await engine.containerIdentifiers()
            let chosen = values["c"].flatMap { containers.contains($0) ? $0 : nil } ?? containers.first ?? ""
            let environment = values["env"].flatMap(DatabaseEnvironment.init(rawValue:)) ?? .development
            let chrome = ConsoleChrome(
                operatorEmail: session.email, csrfToken: session.csrfToken, containers: containers,
                container: chosen, environment: environment, path: path)
            let console = ConsoleRequest(request: request, session: session, chrome: chrome, values: values, list: list, files: files)
            do {
                return try await body(console)
            } catch let error as CloudKitError {
                return ConsoleResponse.page(
                    ConsoleLayout.page(
                        title: "Could not do that", chrome: chrome,
                        """
                        \(ConsoleLayout.notice("\(error.code.rawValue): \(error.reason)", kind: "error"))
                        <p><a href="\(chrome.link(path == "/console/asset" ? "/console/records" : path))">Back</a></p>
                        """), status: HTTPResponse.Status(code: error.code.httpStatus))
            }
        } catch let error as CloudKitError {
            // A form body too large or malformed to read.
            return ConsoleResponse.page(
                ConsoleLayout.page(
                    title: "Could not do that", chrome: nil,
                    ConsoleLayout.notice("\(error.code.rawValue): \(error.reason)", kind: "error")), status: HTTPResponse.Status(code: error.code.httpStatus))
        } catch {
            engine.logger.error("console request failed", metadata: ["path": .string(path), "error": .string(String(reflecting: error))])
            return ConsoleResponse.page(
                ConsoleLayout.page(
                    title: "Something went wrong", chrome: nil,
                    ConsoleLayout.notice("The server could not show this page; its log has the details.", kind: "error")), status: .internalServerError)
        }
    }
}

/// One signed-in console request: its session, the container and environment chosen, and its
/// query (GET) or form (POST) values.
struct ConsoleRequest: Sendable {
    let request: Request
    let session: ConsoleSession
    let chrome: ConsoleChrome
    /// First value of each name.
    let values: [String: String]
    /// Every name and value in order (filters repeat names).
    let list: [(String, String)]
    /// Files of a multipart form, by field name.
    var files: [String: MultipartForm.File] = [:]

    subscript(_ name: String) -> String { values[name] ?? "" }

    func all(_ name: String) -> [String] { list.filter { $0.0 == name }.map(\.1) }

    var container: String { chrome.container }
    var environment: DatabaseEnvironment { chrome.environment }

    /// `http://host:port` as the browser reached the server.
    var baseURL: String {
        let host = ConsoleSessions.host(of: request) ?? "127.0.0.1"
        return "http://\(host)"
    }

    func page(_ title: String, _ body: HTML, status: HTTPResponse.Status = .ok) -> Response {
        ConsoleResponse.page(ConsoleLayout.page(title: title, chrome: chrome, body), status: status)
    }
}

/// `a=1&b=2` (a query or a form body) as ordered pairs, `+` as space, percent-decoded.
enum ConsoleQuery {
    static func pairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (FormFields.decode(parts[0]), parts.count > 1 ? FormFields.decode(parts[1]) : "")
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import StratusEngine

/// Signing in to the console: email and password (`stratus admin create`), or the one-time link
/// the first start prints. Both end with a session cookie and a redirect into the console.
struct ConsoleSignIn: Sendable {
    let engine: Engine
    let hasher: any PasswordHashing
    let sessions: ConsoleSessions

    func add(to router: Router<BasicRequestContext>) {
        router.get("/console/signin") { request, _ in
            form(next: request.uri.queryParameters.get("next") ?? "", email: "", error: nil)
        }
        router.post("/console/signin") { request, _ in await signIn(request) }
        router.get("/console/link") { request, _ in
            let token = request.uri.queryParameters.get("token") ?? ""
            return ConsoleResponse.page(
                ConsoleLayout.page(
                    title: "Open the console", chrome: nil,
                    """
                    <p>This one-time link signs you in to this server's console. It works once.</p>
                    <form method="post" action="/console/link" class="stack">
                    <input type="hidden" name="token" value="\(token)">
                    <button type="submit" id="continue">Continue to the console</button>
                    </form>
                    """))
        }
        router.post("/console/link") { request, _ in await redeem(request) }
    }

    func form(next: String, email: String, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        let message = error.map { ConsoleLayout.notice($0, kind: "error") } ?? ""
        return ConsoleResponse.page(
            ConsoleLayout.page(
                title: "Sign in to the console", chrome: nil,
                """
                \(message)
                <form method="post" action="/console/signin" class="stack">
                <input type="hidden" name="next" value="\(next)">
                <label for="email">Email address</label>
                <input id="email" name="email" type="email" autocomplete="username" required value="\(email)">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required>
                <button type="submit">Sign in</button>
                </form>
                <p class="muted">Console accounts are made on the server: <code>stratus admin create EMAIL --password …</code>.
                The first start of a new server prints a one-time sign-in link.</p>
                """), status: status)
    }

    func signIn(_ request: Request) async -> Response {
        var fields: [String: String] = [:]
        do {
            let bytes = try await RequestBodyReader(maximumBytes: 16 * 1024).bytes(from: request.body)
            fields = try FormFields.parse(bytes, json: false)
            guard ConsoleSessions.sameOrigin(request) else { throw CloudKitError.badRequest("sign in from this server's own page") }
            let signedIn = try await engine.signInToConsole(
                email: fields["email"] ?? "", password: fields["password"] ?? "", hasher: hasher,
                lifetimeMilliseconds: sessions.lifetimeMilliseconds)
            try await engine.auditConsoleChange(operator: signedIn.session.email, container: "", action: "session.start", detail: "signed in with a password")
            return started(signedIn.cookie, next: fields["next"] ?? "")
        } catch let error as CloudKitError {
            var response = form(
                next: fields["next"] ?? "", email: fields["email"] ?? "", error: error.reason,
                status: HTTPResponse.Status(code: error.code.httpStatus))
            if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        } catch {
            return form(
                next: fields["next"] ?? "", email: fields["email"] ?? "", error: "the form could not be read; reload the page and try again",
                status: .badRequest)
        }
    }

    func redeem(_ request: Request) async -> Response {
        do {
            let bytes = try await RequestBodyReader(maximumBytes: 16 * 1024).bytes(from: request.body)
            let fields = try FormFields.parse(bytes, json: false)
            guard ConsoleSessions.sameOrigin(request),
                let signedIn = try await engine.redeemConsoleLink(fields["token"] ?? "", lifetimeMilliseconds: sessions.lifetimeMilliseconds)
            else {
                return form(
                    next: "", email: "", error: "this sign-in link was already used or has expired; sign in with a password (stratus admin create EMAIL --password …)",
                    status: .unauthorized)
            }
            try await engine.auditConsoleChange(operator: signedIn.session.email, container: "", action: "session.start", detail: "signed in with a one-time link")
            return started(signedIn.cookie, next: "/console")
        } catch {
            return form(next: "", email: "", error: "the form could not be read; reload the page and try again", status: .badRequest)
        }
    }

    /// Sets the session cookie and goes on to `next` when it is a console address.
    func started(_ cookie: String, next: String) -> Response {
        let printable = next.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }
        let target = printable && next.hasPrefix("/console") ? next : "/console"
        var response = ConsoleResponse.redirect(ConsoleURL(target))
        response.headers[.setCookie] = sessions.setCookie(cookie)
        return response
    }
}

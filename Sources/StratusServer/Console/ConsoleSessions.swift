import Foundation
import HTTPTypes
import Hummingbird
import StratusEngine

/// Who a console request comes from, and the checks every state-changing request passes.
///
/// A session is a random secret in a cookie (`HttpOnly`, `SameSite=Strict`, path `/console`,
/// expiring with the session); the database keeps only its SHA-256. Each session has a CSRF
/// token that every form carries in a hidden field; a POST without the session's token, or from
/// another origin, changes nothing.
struct ConsoleSessions: Sendable {
    static let cookieName = "stratus_console"

    let engine: Engine
    /// Session lifetime, milliseconds.
    let lifetimeMilliseconds: Int64

    /// The cookie secret a request carries, if any.
    static func cookie(of request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    func session(of request: Request) async throws -> ConsoleSession? {
        guard let cookie = ConsoleSessions.cookie(of: request), !cookie.isEmpty else { return nil }
        return try await engine.consoleSession(cookie: cookie)
    }

    /// The `Set-Cookie` value that starts a session in the browser.
    func setCookie(_ secret: String) -> String {
        "\(ConsoleSessions.cookieName)=\(secret); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(lifetimeMilliseconds / 1000)"
    }

    /// The `Set-Cookie` value that removes it.
    static let clearCookie = "\(cookieName)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0"

    /// Whether a POST may change anything: the form's CSRF token is the session's, and a browser
    /// that names the page's origin names this server.
    static func mayChange(_ request: Request, form: [String: String], session: ConsoleSession) -> Bool {
        guard let sent = form["csrf"], constantTimeEqual(sent, session.csrfToken) else { return false }
        return sameOrigin(request)
    }

    /// `Origin` (sent by browsers with every POST) must match `Host`; a request without one is not
    /// a cross-site browser form.
    static func sameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = host(of: request) else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// The host (and port) the browser addressed: HTTP/1's Host header becomes the authority.
    static func host(of request: Request) -> String? {
        request.head.authority ?? request.headers[HTTPField.Name("Host")!]
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

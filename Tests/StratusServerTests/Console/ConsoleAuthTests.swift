import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// The console's sign-in and the checks around every change: cookies, CSRF, origin, lockout,
/// one-time links, expiry and the audit log. Runs on the suite's backend (SQLite, or PostgreSQL
/// in the PostgreSQL pass).
@Suite struct ConsoleAuthTests {
    static let configuration = ServerConfiguration(passwordHashCost: 4)
    static let email = "ops@example.com"
    static let password = "console password 1"

    static func addOperator(_ fixture: RouterFixture) async throws {
        try await fixture.engine.saveConsoleOperator(email: email, password: password, hasher: BcryptHasher(cost: 4))
    }

    @Test func signedOutBrowsersAreSentToSignInAndASessionCookieIsHttpOnlyAndStrict() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            try await Self.addOperator(fixture)
            var browser = ConsoleClient(client: client)
            let root = try await browser.get("/")
            #expect(root.status == 303 && root.headers[.location] == "/console")
            let signedOut = try await browser.get("/console/records?c=\(RouterFixture.container)")
            #expect(signedOut.status == 303)
            #expect(signedOut.headers[.location]?.hasPrefix("/console/signin?next=%2Fconsole%2Frecords") == true)
            let signedIn = try await browser.signIn(email: Self.email, password: Self.password)
            #expect(signedIn.status == 303)
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console") && cookie.contains("Max-Age=28800"))
            let home = try await browser.get("/console")
            #expect(home.status == 200)
            #expect(home.body.contains(Self.email) && home.body.contains(RouterFixture.container))
            #expect(home.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(home.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            // Signing out ends the session on the server, not only in the browser.
            _ = try await browser.post("/console/signout", [("csrf", try #require(home.csrf))])
            #expect(try await browser.get("/console").status == 303)
        }
    }

    @Test func wrongPasswordsAreRefusedAndThenLockTheAddressOut() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            try await Self.addOperator(fixture)
            var browser = ConsoleClient(client: client)
            for _ in 0..<5 {
                let wrong = try await browser.signIn(email: Self.email, password: "not the password")
                #expect(wrong.status == 401)
                #expect(wrong.body.contains("the email address or password is wrong"))
                #expect(wrong.headers[.setCookie] == nil)
            }
            // Locked: even the right password waits now.
            let locked = try await browser.signIn(email: Self.email, password: Self.password)
            #expect(locked.status == 429)
            #expect(locked.headers[.retryAfter] != nil)
            #expect(browser.cookie == nil)
            // Another operator's address is not locked by these failures.
            try await fixture.engine.saveConsoleOperator(email: "second@example.com", password: Self.password, hasher: BcryptHasher(cost: 4))
            #expect(try await browser.signIn(email: "second@example.com", password: Self.password).status == 303)
        }
    }

    @Test func aChangeNeedsTheSessionsCSRFTokenAndThisOriginAndIsAudited() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            try await Self.addOperator(fixture)
            var browser = ConsoleClient(client: client)
            _ = try await browser.signIn(email: Self.email, password: Self.password)
            let page = try await browser.get("/console/tokens?c=\(RouterFixture.container)")
            let csrf = try #require(page.csrf)
            let before = try await fixture.engine.apiTokens(container: RouterFixture.container).count
            let form = [("c", RouterFixture.container), ("origins", "*")]
            // No token, a wrong token, another site's origin: nothing changes.
            #expect(try await browser.post("/console/tokens/create", form).status == 403)
            #expect(try await browser.post("/console/tokens/create", form + [("csrf", String(repeating: "0", count: csrf.count))]).status == 403)
            #expect(try await browser.post("/console/tokens/create", form + [("csrf", csrf)], origin: "https://evil.example").status == 403)
            // Another session's token does not work either.
            var other = ConsoleClient(client: client)
            _ = try await other.signIn(email: Self.email, password: Self.password)
            #expect(try await other.post("/console/tokens/create", form + [("csrf", csrf)]).status == 403)
            #expect(try await fixture.engine.apiTokens(container: RouterFixture.container).count == before)
            #expect(try await fixture.engine.consoleAudit().allSatisfy { $0.action == "session.start" })
            // With this session's token from this origin, it does, once, and is audited.
            let created = try await browser.post("/console/tokens/create", form + [("csrf", csrf)])
            #expect(created.status == 200)
            #expect(try await fixture.engine.apiTokens(container: RouterFixture.container).count == before + 1)
            let entry = try #require(try await fixture.engine.consoleAudit().first)
            #expect(entry.action == "token.create" && entry.operatorEmail == Self.email && entry.container == RouterFixture.container)
            let audit = try await browser.get("/console/audit")
            #expect(audit.body.contains("token.create"))
            // A POST without a session changes nothing either.
            let signedOut = ConsoleClient(client: client)
            #expect(try await signedOut.post("/console/tokens/create", form + [("csrf", csrf)]).status == 401)
        }
    }

    @Test func aOneTimeLinkSignsInOnce() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            let secret = try await fixture.engine.createConsoleLink()
            var browser = ConsoleClient(client: client)
            let landing = try await browser.get("/console/link?token=\(secret)")
            #expect(landing.status == 200 && landing.body.contains(secret))
            let used = try await browser.post("/console/link", [("token", secret)])
            #expect(used.status == 303)
            browser.cookie = used.headers[.setCookie].flatMap(ConsoleClient.cookieValue)
            #expect(try await browser.get("/console").body.contains(Engine.firstOperatorEmail))
            let again = try await ConsoleClient(client: client).post("/console/link", [("token", secret)])
            #expect(again.status == 401)
            #expect(again.headers[.setCookie] == nil)
            // An operator made by a link has no password to guess.
            var guesser = ConsoleClient(client: client)
            #expect(try await guesser.signIn(email: Engine.firstOperatorEmail, password: "").status != 303)
        }
    }

    @Test func anExpiredSessionSignsOut() async throws {
        // A lifetime of a millisecond: every session has expired by its first request, however
        // slow the machine (the browser test shows a session working until it expires).
        var configuration = Self.configuration
        configuration.consoleSessionSeconds = 0.001
        try await RouterFixture.run(configuration: configuration) { fixture, client in
            try await Self.addOperator(fixture)
            var browser = ConsoleClient(client: client)
            let signedIn = try await browser.signIn(email: Self.email, password: Self.password)
            #expect(signedIn.status == 303 && browser.cookie != nil)
            let page = try await browser.get("/console/tokens")
            #expect(page.status == 303)
            #expect(page.headers[.location]?.hasPrefix("/console/signin") == true)
            let before = try await fixture.engine.apiTokens(container: RouterFixture.container).count
            let change = try await browser.post("/console/tokens/create", [("c", RouterFixture.container), ("csrf", "0")])
            #expect(change.status == 401)
            #expect(try await fixture.engine.apiTokens(container: RouterFixture.container).count == before)
        }
    }
}

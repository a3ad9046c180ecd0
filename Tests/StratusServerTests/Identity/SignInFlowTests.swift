import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// The sign-in flow end to end through the router: 421 with a redirect, the form, delivery by
/// callback and by postMessage, token rotation (session-long and single-use), expiry, "keep me signed in", sign-out, and
/// throttled password guessing.
@Suite struct SignInFlowTests {
    static let configuration = ServerConfiguration(passwordHashCost: 4)
    static let webAuthHeader = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!

    /// Posts the form as a browser does.
    static func submit(_ client: any TestClientProtocol, _ fields: [(String, String)]) async throws -> (status: Int, body: String, headers: HTTPFields) {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }.joined(separator: "&")
        return try await client.execute(
            uri: "/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: body)
        ) { response in
            (Int(response.status.code), String(buffer: response.body), response.headers)
        }
    }

    @Test func signInRequiredLeadsToTheFormAndTheCallbackDeliversARotatingToken() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, client in
            try await fixture.engine.configureAPIToken(
                fixture.apiToken, container: RouterFixture.container,
                allowedOrigins: ["https://app.example.com"], callbackURL: "https://app.example.com/done?step=2")
            // 1. A request that needs a user answers 421 with the sign-in page's address.
            let needsUser = try await client.call(fixture.path("users/caller", anonymous: true), method: .get)
            #expect(needsUser.status == 421)
            #expect(needsUser.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            let redirect = try #require(needsUser.json["redirectURL"]?.stringValue.flatMap(URLComponents.init(string:)))
            #expect(redirect.path == "/signin")
            // 2. The page is a plain form with labelled fields.
            let pagePath = redirect.path + "?" + (redirect.percentEncodedQuery ?? "")
            let page = try await client.execute(uri: pagePath, method: .get) { String(buffer: $0.body) }
            #expect(page.contains(#"<html lang="en">"#))
            #expect(page.contains(#"<label for="email">"#) && page.contains(#"<label for="password">"#))
            #expect(page.contains(#"name="keep""#))
            let handle = try #require(redirect.queryItems?.first { $0.name == "token" }?.value)
            // 3. Sign up through the form: the browser is sent to the callback URL with the token.
            let signedUp = try await SignInFlowTests.submit(
                client,
                [
                    ("container", RouterFixture.container), ("token", handle), ("email", "ann@example.com"),
                    ("password", "correct horse battery"), ("name", "Ann Example"), ("action", "signup"),
                ])
            #expect(signedUp.status == 303)
            let location = try #require(signedUp.headers[.location].flatMap(URLComponents.init(string:)))
            #expect(location.host == "app.example.com" && location.path == "/done")
            #expect(location.queryItems?.first { $0.name == "step" }?.value == "2")
            let first = try #require(location.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
            // 4. The answer carries the token's replacement; the replaced token keeps working for
            // the session, as on Apple's service, so clients that never read the header carry on.
            let caller = try await client.call(fixture.path("users/caller", webAuthToken: first), method: .get)
            #expect(caller.status == 200)
            #expect(caller.json["emailAddress"] == "ann@example.com")
            let second = try #require(caller.headers[SignInFlowTests.webAuthHeader])
            #expect(second != first)
            let reused = try await client.call(fixture.path("users/caller", webAuthToken: first), method: .get)
            #expect(reused.status == 200)
            #expect(reused.headers[SignInFlowTests.webAuthHeader] != nil)
            // 5. Errors carry the replacement too.
            let bad = try await client.call(fixture.path("records/query", webAuthToken: second), body: "{not json")
            #expect(bad.status == 400)
            let third = try #require(bad.headers[SignInFlowTests.webAuthHeader])
            let private_ = try await client.call(fixture.path("zones/list", database: "private", webAuthToken: third), method: .get)
            #expect(private_.status == 200)
            let fourth = try #require(private_.headers[SignInFlowTests.webAuthHeader])
            // 6. Sign-out revokes.
            let signOut = try await client.call("/signout?container=\(RouterFixture.container)&ckWebAuthToken=\(WebToken.escape(fourth))")
            #expect(signOut.status == 200)
            let afterSignOut = try await client.call(fixture.path("users/caller", webAuthToken: fourth), method: .get)
            #expect(afterSignOut.status == 421)
            // …every token of the session, the replaced ones included.
            for earlier in [first, second, third] {
                let refused = try await client.call(fixture.path("users/caller", webAuthToken: earlier), method: .get)
                #expect(refused.status == 421)
                #expect(refused.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            }
        }
    }

    @Test func singleUseTokensWorkOnceWhenTheOperatorAsks() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration, webAuthTokenPolicy: .singleUse) { fixture, client in
            let session = try await fixture.engine.signUp(
                container: RouterFixture.container, name: "Eve", email: "eve@example.com",
                password: "long enough secret", discoverable: false, keepSignedIn: false,
                hasher: BcryptHasher(cost: 4))
            let first = try await client.call(fixture.path("users/caller", webAuthToken: session.webAuthToken), method: .get)
            #expect(first.status == 200)
            let replacement = try #require(first.headers[SignInFlowTests.webAuthHeader])
            let reused = try await client.call(fixture.path("users/caller", webAuthToken: session.webAuthToken), method: .get)
            #expect(reused.status == 421)
            #expect(reused.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            let next = try await client.call(fixture.path("users/caller", webAuthToken: replacement), method: .get)
            #expect(next.status == 200)
        }
    }

    @Test func aPasswordLongerThanBcryptReadsNeverMatches() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, _ in
            let password = String(repeating: "p", count: 72)
            _ = try await fixture.engine.signUp(
                container: RouterFixture.container, name: "Flo", email: "flo@example.com", password: password,
                discoverable: false, keepSignedIn: false, hasher: BcryptHasher(cost: 4))
            // bcrypt reads 72 bytes: without the length check, anything after them would be ignored.
            await #expect(throws: CloudKitError.self) {
                try await fixture.engine.signIn(
                    container: RouterFixture.container, email: "flo@example.com", password: password + "anything",
                    keepSignedIn: false, hasher: BcryptHasher(cost: 4))
            }
            let right = try await fixture.engine.signIn(
                container: RouterFixture.container, email: "flo@example.com", password: password,
                keepSignedIn: false, hasher: BcryptHasher(cost: 4))
            #expect(!right.webAuthToken.isEmpty)
        }
    }

    @Test func withoutACallbackTheTokenIsPostedToTheOpener() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, client in
            try await fixture.engine.configureAPIToken(
                fixture.apiToken, container: RouterFixture.container,
                allowedOrigins: ["https://app.example.com"], callbackURL: nil)
            let handle = String(secretDigest(fixture.apiToken).prefix(16))
            let page = try await SignInFlowTests.submit(
                client,
                [
                    ("container", RouterFixture.container), ("token", handle), ("email", "bob@example.com"),
                    ("password", "long enough secret"), ("action", "signup"),
                ])
            #expect(page.status == 200)
            #expect(page.body.contains(#"window.opener.postMessage({"ckWebAuthToken":"stratus__1__"#))
            #expect(page.body.contains(#""https://app.example.com")"#))
        }
    }

    @Test func sessionsExpireAndKeepMeSignedInLastsTwoWeeks() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, client in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let container = RouterFixture.container
            _ = try await fixture.engine.signUp(
                container: container, name: "Cy", email: "cy@example.com", password: "twelve chars",
                discoverable: false, keepSignedIn: false, hasher: BcryptHasher(cost: 4))
            for (keep, lifetime) in [(false, SessionLifetime.standard), (true, SessionLifetime.kept)] {
                let answer = try await client.execute(
                    uri: "/signin", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"container":"\#(container)","email":"cy@example.com","password":"twelve chars","keep":\#(keep)}"#)
                ) {
                    try JSONValue.parse(Array($0.body.readableBytesView))
                }
                let expires = try #require(answer["expires"]?.int64Value)
                #expect(abs(expires - now - lifetime) < 60_000, "keep \(keep)")
            }
            // A token past its expiry is refused (and gone).
            let user = try #require(
                try await fixture.engine.signIn(
                    container: container, email: "cy@example.com", password: "twelve chars",
                    keepSignedIn: false, hasher: BcryptHasher(cost: 4)
                ).userRecordName as String?)
            let expired = "stratus__1__expired-token-for-test"
            try await fixture.storage.write { writer in
                try await writer.addWebSession(
                    digest: secretDigest(expired), container: container, userRecordName: user,
                    expiresMilliseconds: now - 1, lifetimeMilliseconds: SessionLifetime.standard)
            }
            let refused = try await client.call(fixture.path("users/caller", webAuthToken: expired), method: .get)
            #expect(refused.status == 421)
            #expect(refused.json["reason"]?.stringValue?.contains("expired") == true)
            #expect(refused.headers[SignInFlowTests.webAuthHeader] == nil)
        }
    }

    @Test func wrongPasswordsAreThrottledAndNeverEchoed() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, client in
            let container = RouterFixture.container
            _ = try await fixture.engine.signUp(
                container: container, name: "Di", email: "di@example.com", password: "the right one",
                discoverable: false, keepSignedIn: false, hasher: BcryptHasher(cost: 4))
            func attempt(_ password: String) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
                try await client.execute(
                    uri: "/signin", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"container":"\#(container)","email":"di@example.com","password":"\#(password)"}"#)
                ) {
                    (Int($0.status.code), try JSONValue.parse(Array($0.body.readableBytesView)), $0.headers)
                }
            }
            for guess in 1...5 {
                let wrong = try await attempt("guess number \(guess)")
                #expect(wrong.status == 401)
                #expect(wrong.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
                #expect(wrong.json["reason"]?.stringValue?.contains("guess number") == false)
            }
            let throttled = try await attempt("the right one")
            #expect(throttled.status == 429)
            #expect(throttled.json["serverErrorCode"] == "THROTTLED")
            #expect((throttled.json["retryAfter"]?.int64Value ?? 0) >= 1)
            #expect(throttled.headers[.retryAfter] != nil)
            // The stored password is a bcrypt hash.
            let account = try await fixture.storage.read { try await $0.userAccount(container: container, email: "di@example.com") }
            #expect(account?.passwordHash.hasPrefix("$2") == true)
            #expect(account?.passwordHash.contains("the right one") == false)
        }
    }

    @Test func badSignInInputGetsClearErrorsNotA500() async throws {
        try await RouterFixture.run(configuration: SignInFlowTests.configuration) { fixture, client in
            let cases: [(String, String, Int)] = [
                ("application/json", "{broken", 400),
                ("application/json", #"{"container":"\#(RouterFixture.container)","email":"not-an-email","password":"longenough","action":"signup"}"#, 400),
                ("application/json", #"{"container":"\#(RouterFixture.container)","email":"ok@example.com","password":"short","action":"signup"}"#, 400),
                ("application/json", #"{"email":"ok@example.com","password":"longenough"}"#, 400),
                ("application/json", #"{"container":"iCloud.no.such","email":"ok@example.com","password":"longenough","action":"signup"}"#, 404),
                ("application/x-www-form-urlencoded", "container=\(RouterFixture.container)&email=%ZZ&password=x", 401),
            ]
            for (type, body, status) in cases {
                let answer = try await client.execute(
                    uri: "/signin", method: .post, headers: [.contentType: type, .accept: "application/json"],
                    body: ByteBuffer(string: body)
                ) {
                    (Int($0.status.code), try JSONValue.parse(Array($0.body.readableBytesView)))
                }
                #expect(answer.0 == status, "\(body): \(answer.1)")
                #expect(answer.1["reason"]?.stringValue?.isEmpty == false)
            }
            let malformedToken = try await client.call(fixture.path("users/caller", webAuthToken: "%%%garbage\u{1}"), method: .get)
            #expect(malformedToken.status == 421)
        }
    }
}

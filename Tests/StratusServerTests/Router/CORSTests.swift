import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Browser clients call the API cross-origin from the origins their API token allows.
@Suite struct CORSTests {
    @Test func aTokenForAnyOriginReflectsTheOriginAndExposesTheCloudKitHeaders() async throws {
        try await RouterFixture.run { fixture, client in
            try await client.execute(uri: fixture.path("zones/list"), method: .get, headers: [.origin: "https://app.example.com"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "https://app.example.com")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("X-Apple-Request-UUID") == true)
                #expect(response.headers[.accessControlExposeHeaders]?.contains("X-Apple-CloudKit-Web-Auth-Token") == true)
                #expect(response.headers[.accessControlExposeHeaders]?.contains("RateLimit-Remaining") == true)
            }
        }
    }

    @Test func aSameOriginRequestGetsNoCORSHeaders() async throws {
        try await RouterFixture.run { fixture, client in
            try await client.execute(uri: fixture.path("zones/list"), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
                #expect(response.headers[.accessControlExposeHeaders] == nil)
                #expect(response.headers[HTTPField.Name("X-Apple-Request-UUID")!] != nil)
            }
        }
    }

    @Test func aRestrictedTokenServesItsOriginsOnly() async throws {
        try await RouterFixture.run { fixture, client in
            try await fixture.engine.configureAPIToken(
                fixture.apiToken, container: RouterFixture.container,
                allowedOrigins: ["https://app.example.com"], callbackURL: nil)
            let preflight: HTTPFields = [.accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type"]
            var good = preflight
            good[.origin] = "https://app.example.com"
            try await client.execute(uri: fixture.path("records/query"), method: .options, headers: good) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == "https://app.example.com")
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
            }
            var evil = preflight
            evil[.origin] = "https://evil.example.net"
            try await client.execute(uri: fixture.path("records/query"), method: .options, headers: evil) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            // A simple (text/plain) POST from a refused origin is not run at all.
            let body = ByteBuffer(string: createBody(["fromEvil"]).serializedString)
            try await client.execute(
                uri: fixture.path("records/modify", webAuthToken: fixture.writerToken), method: .post,
                headers: [.origin: "https://evil.example.net", .contentType: "text/plain"], body: body
            ) { response in
                #expect(response.status == .forbidden)
                let json = try JSONValue.parse(Array(response.body.readableBytesView))
                #expect(json["serverErrorCode"] == "ACCESS_DENIED")
                #expect(json["reason"]?.stringValue?.contains("https://evil.example.net") == true)
            }
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "fromEvil"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
        }
    }

    @Test func textPlainPostsWorkWithoutAPreflight() async throws {
        try await RouterFixture.run { fixture, client in
            try await fixture.engine.configureAPIToken(
                fixture.apiToken, container: RouterFixture.container,
                allowedOrigins: ["https://app.example.com"], callbackURL: nil)
            let body = ByteBuffer(string: createBody(["plain"]).serializedString)
            try await client.execute(
                uri: fixture.path("records/modify", webAuthToken: fixture.writerToken), method: .post,
                headers: [.origin: "https://app.example.com", .contentType: "text/plain;charset=UTF-8"], body: body
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "https://app.example.com")
                let json = try JSONValue.parse(Array(response.body.readableBytesView))
                #expect(json.record(0)?["recordName"] == "plain")
            }
        }
    }

    @Test func badOriginSettingsAreRefusedWithTheReason() async throws {
        try await RouterFixture.run { fixture, _ in
            do {
                try await fixture.engine.configureAPIToken(
                    fixture.apiToken, container: RouterFixture.container,
                    allowedOrigins: ["app.example.com/path"], callbackURL: nil)
                Issue.record("a malformed origin was accepted")
            } catch let error as CloudKitError {
                #expect(error.code == .badRequest)
                #expect(error.reason.contains("scheme://host"))
            }
        }
    }
}

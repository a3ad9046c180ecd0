import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Browser clients can call the API cross-origin and read the request UUID.
@Suite struct CORSTests {
    @Test func responsesAllowAnyOriginAndExposeTheRequestUUID() async throws {
        try await RouterFixture.run { fixture, client in
            try await client.execute(uri: fixture.path("zones/list"), method: .get, headers: [.origin: "https://app.example.com"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("X-Apple-Request-UUID") == true)
            }
        }
    }

    @Test func preflightIsAnswered() async throws {
        try await RouterFixture.run { fixture, client in
            let headers: HTTPFields = [.origin: "https://app.example.com", .accessControlRequestMethod: "POST",
                                       .accessControlRequestHeaders: "content-type"]
            try await client.execute(uri: fixture.path("records/query"), method: .options, headers: headers) { response in
                #expect(response.status == .noContent || response.status == .ok)
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
            }
        }
    }
}

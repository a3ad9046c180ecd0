import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusModel
import Testing

/// `GET /health`: what a load balancer or an orchestrator's probe calls, with no credentials.
@Suite struct HealthTests {
    @Test func healthAnswersOKWithoutCredentials() async throws {
        try await RouterFixture.run { _, client in
            let response = try await client.call("/health", method: .get)
            #expect(response.status == 200)
            #expect(response.json == ["status": "ok"])
            #expect(response.headers[.contentType] == "application/json; charset=UTF-8")
        }
    }
}

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

    /// `GET /ready`: what a load balancer routes by. 200 while the database answers; once the
    /// storage is closed (as when the instance loses its database), 503.
    @Test func readyFollowsTheDatabase() async throws {
        try await RouterFixture.run { fixture, client in
            let ready = try await client.call("/ready", method: .get)
            #expect(ready.status == 200)
            #expect(ready.json["status"] == "ready")
            try await fixture.storage.close()
            let unavailable = try await client.call("/ready", method: .get)
            #expect(unavailable.status == 503)
            #expect(unavailable.json["status"] == "unavailable")
        }
    }
}

import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusModel
import StratusServer
import Testing

/// Whole-request failures: status code, `serverErrorCode`, a reason that names the problem, and
/// the `uuid` that matches the response header.
@Suite struct ErrorShapeTests {
    @Test func malformedJSONNamesTheByteOffset() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/modify"), body: #"{"operations": [ }"#)
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["malformed JSON", "byte"])
        }
    }

    @Test func emptyBodyAsksForAJSONObject() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/query"))
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["the body is empty; send a JSON object"])
        }
    }

    @Test func wrongTypesNameTheField() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/modify"), json: ["operations": "create"])
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["operations"])
            let notObject = try await client.call(fixture.path("records/lookup"), body: "[1, 2]")
            #expect(notObject.status == 400)
            #expect(notObject.json["serverErrorCode"] == "BAD_REQUEST")
        }
    }

    @Test func bodyOverTheCapIsRefusedNamingTheCap() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(maximumBodyBytes: 1024)) { fixture, client in
            let big = createBody((0..<100).map { "record-number-\($0)" })
            let response = try await client.call(fixture.path("records/modify"), json: big)
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["1024 bytes"])
        }
    }

    @Test func missingTokenIsAuthenticationFailed() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/query", apiToken: ""), json: ["query": ["recordType": "Note"]])
            expectError(response, status: 401, code: "AUTHENTICATION_FAILED", reasonContains: ["ckAPIToken"])
        }
    }

    @Test func wrongTokenIsAuthenticationFailed() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(
                fixture.path("records/query", apiToken: String(repeating: "0", count: 64)),
                json: ["query": ["recordType": "Note"]])
            expectError(response, status: 401, code: "AUTHENTICATION_FAILED", reasonContains: ["ckAPIToken"])
        }
    }

    @Test func unknownContainerIsNotFound() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("zones/list", container: "iCloud.no.such"), method: .get)
            expectError(response, status: 404, code: "NOT_FOUND", reasonContains: ["iCloud.no.such"])
        }
    }

    @Test func unknownEnvironmentNamesTheAllowedValues() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("zones/list", environment: "staging"), method: .get)
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["staging", "development", "production"])
        }
    }

    @Test func unknownDatabaseNamesTheAllowedValues() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("zones/list", database: "secret"), method: .get)
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["secret", "public", "private", "shared"])
        }
    }

    @Test func unknownOperationIsNotFoundNamingIt() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/frobnicate"), json: [:])
            expectError(response, status: 404, code: "NOT_FOUND", reasonContains: ["records/frobnicate", "records/modify"])
        }
    }

    @Test func unknownPathIsACloudKitNotFound() async throws {
        try await RouterFixture.run { _, client in
            let response = try await client.call("/nothing/here", method: .get)
            expectError(response, status: 404, code: "NOT_FOUND", reasonContains: ["/nothing/here"])
        }
    }

    @Test func moreThan200OperationsIsRefusedAndNothingIsWritten() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/modify"), json: createBody((0...200).map { "r\($0)" }))
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["200"])
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "r0"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
        }
    }

    @Test func privateDatabaseWithoutAUserNeedsSignIn() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/query", database: "private"), json: ["query": ["recordType": "Note"]])
            expectError(response, status: 421, code: "AUTHENTICATION_REQUIRED", reasonContains: ["ckWebAuthToken"])
            #expect(response.json["redirectURL"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func unknownWebAuthTokenNeedsSignIn() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(
                fixture.path("records/query", database: "private", webAuthToken: "stratus__1__bogus+/="),
                json: ["query": ["recordType": "Note"]])
            #expect(response.status == 421)
            #expect(response.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            #expect(response.json["redirectURL"]?.stringValue?.isEmpty == false)
        }
    }
}

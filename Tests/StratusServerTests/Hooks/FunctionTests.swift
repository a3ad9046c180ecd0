import Foundation
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// Server functions at /functions/1/{container}/{environment}/{name}: authenticated like database
/// requests, JSON in and out, errors as CKWS error dictionaries.
@Suite("Server functions")
struct FunctionTests {
    static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.functions.add("whoami") { input, context in
            .object(["user": context.caller.userRecordName.map { .string($0) } ?? .null, "echo": input["say"] ?? .null])
        }
        configuration.functions.add("noteCount") { _, context in
            let database = try context.privateDatabase()
            let page = try await database.query(RecordQuery(recordType: "Note", zoneID: .default, limit: 200, fingerprint: []))
            return .object(["notes": .int(Int64(page.records.count))])
        }
        configuration.functions.add("refuse") { _, _ in throw HookRejection("not today") }
        return configuration
    }

    static func path(_ fixture: RouterFixture, _ name: String, environment: String = "development", user: String? = nil, apiToken: String? = nil) -> String {
        var query = ["ckAPIToken=\(apiToken ?? fixture.apiToken)"]
        if let user { query.append("ckWebAuthToken=\(WebToken.escape(user))") }
        return "/functions/1/\(RouterFixture.container)/\(environment)/\(name)?" + query.joined(separator: "&")
    }

    @Test("a function answers its JSON, knowing its caller")
    func answersJSON() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            let anonymous = try await client.call(Self.path(fixture, "whoami"), json: ["say": "hi"])
            #expect(anonymous.status == 200)
            #expect(anonymous.json == ["user": .null, "echo": "hi"])
            let signedIn = try await client.call(Self.path(fixture, "whoami", user: fixture.writerToken), json: [:])
            #expect(signedIn.json["user"]?.stringValue == fixture.writer.userRecordName)
        }
    }

    @Test("a function reads the caller's private database through the engine")
    func readsPrivateDatabase() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            _ = try await client.call(fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken), json: createBody(["a", "b"]))
            let answer = try await client.call(Self.path(fixture, "noteCount", user: fixture.writerToken), json: [:])
            #expect(answer.json == ["notes": 2])
            let anonymous = try await client.call(Self.path(fixture, "noteCount"), json: [:])
            #expect(anonymous.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        }
    }

    @Test("errors: an unknown function, a bad token, a refusal, a body that is not JSON, an unknown environment")
    func errors() async throws {
        try await RouterFixture.run(configuration: Self.configuration) { fixture, client in
            expectError(try await client.call(Self.path(fixture, "nothing"), json: [:]), status: 404, code: "NOT_FOUND", reasonContains: ["nothing"])
            let badToken = try await client.call(Self.path(fixture, "whoami", apiToken: "0123"), json: [:])
            #expect(badToken.status == 401 || badToken.status == 403)
            #expect(badToken.json["user"] == nil, "the function did not run")
            expectError(try await client.call(Self.path(fixture, "refuse"), json: [:]), status: 400, code: "BAD_REQUEST", reasonContains: ["not today"])
            let notJSON = try await client.call(Self.path(fixture, "whoami"), body: "{nope")
            #expect(notJSON.status == 400)
            #expect(notJSON.json["serverErrorCode"] == "BAD_REQUEST")
            let environment = try await client.call(Self.path(fixture, "whoami", environment: "staging"), json: [:])
            #expect(environment.json["serverErrorCode"] == "BAD_REQUEST")
        }
    }
}

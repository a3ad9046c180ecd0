import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusModel
import StratusServer
import Testing

/// Private databases: a signed-in user works, and users never see each other's records.
@Suite struct UserDatabaseTests {
    @Test func aUserCanWriteAndReadTheirPrivateDatabase() async throws {
        try await RouterFixture.run { fixture, client in
            let user = try await fixture.engine.createUser(name: "ann", container: RouterFixture.container)
            let created = try await client.call(
                fixture.path("records/modify", database: "private", webAuthToken: user.webAuthToken),
                json: createBody(["mine"]))
            #expect(created.status == 200)
            #expect(created.json.record(0)?["created"]?["userRecordName"]?.stringValue == user.userRecordName)
            let lookup = try await client.call(
                fixture.path("records/lookup", database: "private", webAuthToken: user.webAuthToken),
                json: ["records": [["recordName": "mine"]]])
            #expect(lookup.json.record(0)?["recordName"] == "mine")
            #expect(lookup.json.record(0)?["serverErrorCode"] == nil)
        }
    }

    @Test func twoUsersAreIsolated() async throws {
        try await RouterFixture.run { fixture, client in
            let ann = try await fixture.engine.createUser(name: "ann", container: RouterFixture.container)
            let bob = try await fixture.engine.createUser(name: "bob", container: RouterFixture.container)
            _ = try await client.call(
                fixture.path("records/modify", database: "private", webAuthToken: ann.webAuthToken),
                json: createBody(["secret"]))
            let lookup = try await client.call(
                fixture.path("records/lookup", database: "private", webAuthToken: bob.webAuthToken),
                json: ["records": [["recordName": "secret"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
            let query = try await client.call(
                fixture.path("records/query", database: "private", webAuthToken: bob.webAuthToken),
                json: ["query": ["recordType": "Note"]])
            #expect(query.status == 200)
            #expect(query.json["records"]?.arrayValue?.isEmpty == true)
            // Bob may reuse the name in his own database.
            let bobCreate = try await client.call(
                fixture.path("records/modify", database: "private", webAuthToken: bob.webAuthToken),
                json: createBody(["secret"]))
            #expect(bobCreate.json.record(0)?["serverErrorCode"] == nil)
        }
    }

    @Test func tokensArriveLenientlyEncoded() async throws {
        try await RouterFixture.run { fixture, client in
            let user = try await fixture.engine.createUser(name: "ann", container: RouterFixture.container)
            let base = "/database/1/\(RouterFixture.container)/development/private/zones/list?ckAPIToken=\(fixture.apiToken)"
            let onlyPlusEscaped = user.webAuthToken.replacingOccurrences(of: "+", with: "%2B")
            let spaceForPlus = user.webAuthToken.replacingOccurrences(of: "+", with: "%20")
            for query in [
                "&ckWebAuthToken=\(WebToken.escape(user.webAuthToken))",
                "&ckWebAuthToken=\(user.webAuthToken)",
                "&ckWebAuthToken=\(onlyPlusEscaped)",
                "&ckWebAuthToken=\(spaceForPlus)",
                "&ckSession=\(WebToken.escape(user.webAuthToken))",
            ] {
                let response = try await client.call(base + query, method: .get)
                #expect(response.status == 200, "query \(query)")
            }
        }
    }
}

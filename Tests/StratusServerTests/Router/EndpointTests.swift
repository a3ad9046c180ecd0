import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusModel
import StratusServer
import Testing

/// The happy path of every endpoint, through the router without a socket.
@Suite struct EndpointTests {
    @Test func modifyCreatesAndAnswersWithCloudKitHeaders() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(fixture.path("records/modify"), json: createBody(["n1"]))
            #expect(response.status == 200)
            #expect(response.json.record(0)?["recordName"] == "n1")
            #expect(response.json.record(0)?["recordChangeTag"]?.stringValue?.isEmpty == false)
            #expect(response.json.record(0)?["fields"]?["title"]?["value"] == "title of n1")
            #expect(response.headers[.contentType] == "application/json; charset=UTF-8")
            #expect(response.headers[HTTPField.Name("X-Apple-CloudKit-Version")!] == "1.0")
            #expect(response.headers[HTTPField.Name("X-Apple-Request-UUID")!]?.count == 36)
        }
    }

    @Test func lookupAnswersInRequestOrderWithNotFoundElements() async throws {
        try await RouterFixture.run { fixture, client in
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["a", "b"]))
            let body: JSONValue = ["records": [["recordName": "b"], ["recordName": "missing"], ["recordName": "a"]]]
            let response = try await client.call(fixture.path("records/lookup"), json: body)
            #expect(response.status == 200)
            #expect(response.json.record(0)?["recordName"] == "b")
            #expect(response.json.record(1)?["recordName"] == "missing")
            #expect(response.json.record(1)?["serverErrorCode"] == "NOT_FOUND")
            #expect(response.json.record(2)?["recordName"] == "a")
        }
    }

    @Test func queryFindsCreatedRecords() async throws {
        try await RouterFixture.run { fixture, client in
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["q1", "q2", "q3"]))
            let body: JSONValue = [
                "query": [
                    "recordType": "Note",
                    "filterBy": [
                        [
                            "fieldName": "title", "comparator": "EQUALS",
                            "fieldValue": ["value": "title of q2"],
                        ]
                    ],
                ]
            ]
            let response = try await client.call(fixture.path("records/query"), json: body)
            #expect(response.status == 200)
            #expect(response.json["records"]?.arrayValue?.count == 1)
            #expect(response.json.record(0)?["recordName"] == "q2")
        }
    }

    @Test func zonesListAnswersGetWithoutBodyAndPostWithBody() async throws {
        try await RouterFixture.run { fixture, client in
            let get = try await client.call(fixture.path("zones/list"), method: .get)
            #expect(get.status == 200)
            #expect(get.json["zones"]?.arrayValue?.first?["zoneID"]?["zoneName"] == "_defaultZone")
            let post = try await client.call(fixture.path("zones/list"), method: .post, body: "{}")
            #expect(post.status == 200)
            #expect(post.json == get.json)
            let emptyPost = try await client.call(fixture.path("zones/list"), method: .post)
            #expect(emptyPost.status == 200)
            let getWithJunkBody = try await client.call(fixture.path("zones/list"), method: .get, body: "not json at all")
            #expect(getWithJunkBody.status == 200)
        }
    }

    @Test func zonesLookupAndModifyInThePrivateDatabase() async throws {
        try await RouterFixture.run { fixture, client in
            let user = try await fixture.engine.createUser(name: "ann", container: RouterFixture.container)
            let modify = try await client.call(
                fixture.path("zones/modify", database: "private", webAuthToken: user.webAuthToken),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Work"]]]]])
            #expect(modify.status == 200)
            #expect(modify.json["zones"]?.arrayValue?.first?["zoneID"]?["zoneName"] == "Work")
            let lookup = try await client.call(
                fixture.path("zones/lookup", database: "private", webAuthToken: user.webAuthToken),
                json: ["zones": [["zoneName": "Work"], ["zoneName": "Nope"]]])
            #expect(lookup.status == 200)
            #expect(lookup.json["zones"]?.arrayValue?[safe: 0]?["zoneID"]?["zoneName"] == "Work")
            #expect(lookup.json["zones"]?.arrayValue?[safe: 1]?["serverErrorCode"] == "ZONE_NOT_FOUND")
            let list = try await client.call(fixture.path("zones/list", database: "private", webAuthToken: user.webAuthToken), method: .get)
            let names = list.json["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue } ?? []
            #expect(Set(names) == ["_defaultZone", "Work"])
        }
    }

    @Test func atomicBatchFailureIs400WithARecordsArray() async throws {
        try await RouterFixture.run { fixture, client in
            let user = try await fixture.engine.createUser(name: "ann", container: RouterFixture.container)
            let path = fixture.path("records/modify", database: "private", webAuthToken: user.webAuthToken)
            _ = try await client.call(
                fixture.path("zones/modify", database: "private", webAuthToken: user.webAuthToken),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Z"]]]]])
            #expect(try await client.call(path, json: createBody(["x"], zone: "Z")).status == 200)
            let failed = try await client.call(path, json: createBody(["y", "x"], zone: "Z"))
            #expect(failed.status == 400)
            #expect(failed.json.record(0)?["serverErrorCode"] == "ATOMIC_ERROR")
            #expect(failed.json.record(1)?["serverErrorCode"] == "EXISTS")
        }
    }
}

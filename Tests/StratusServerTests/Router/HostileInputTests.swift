import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// Requests that clients written against Apple's service send, and requests an attacker sends:
/// each gets CloudKit's answer or a BAD_REQUEST that names the problem, and nothing is written
/// that the client did not ask for.
@Suite struct HostileInputTests {
    /// The record named `name` in the public default zone, or nil.
    static func lookup(
        _ fixture: RouterFixture, _ client: any TestClientProtocol, _ name: String, zone: String? = nil,
        database: String = "public", webAuthToken: String? = nil
    ) async throws -> JSONValue? {
        var body: [String: JSONValue] = ["records": [["recordName": .string(name)]]]
        if let zone { body["zoneID"] = ["zoneName": .string(zone)] }
        let found = try await client.call(fixture.path("records/lookup", database: database, webAuthToken: webAuthToken), json: .object(body))
        let record = found.json.record(0)
        return record?["serverErrorCode"] == nil ? record : nil
    }

    @Test func aRecordNamingAnotherZoneThanTheRequestIsRefusedAndNotWritten() async throws {
        try await RouterFixture.run { fixture, client in
            let user = fixture.writer
            let zones = try await client.call(
                fixture.path("zones/modify", database: "private", webAuthToken: user.webAuthToken),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Work"]]]]])
            #expect(zones.status == 200)
            func create(_ name: String, recordZone: String?, requestZone: String?) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
                var record: [String: JSONValue] = ["recordName": .string(name), "recordType": "Note", "fields": ["title": ["value": "x"]]]
                if let recordZone { record["zoneID"] = ["zoneName": .string(recordZone)] }
                var body: [String: JSONValue] = ["operations": [["operationType": "create", "record": .object(record)]]]
                if let requestZone { body["zoneID"] = ["zoneName": .string(requestZone)] }
                return try await client.call(fixture.path("records/modify", database: "private", webAuthToken: user.webAuthToken), json: .object(body))
            }
            // Mismatch: refused, naming both zones, written nowhere.
            let mismatch = try await create("stray", recordZone: "Work", requestZone: "_defaultZone")
            expectError(mismatch, status: 400, code: "BAD_REQUEST", reasonContains: ["'Work'", "'_defaultZone'"])
            for zone in ["Work", "_defaultZone"] {
                #expect(try await HostileInputTests.lookup(fixture, client, "stray", zone: zone, database: "private", webAuthToken: user.webAuthToken) == nil)
            }
            // No request zone: the record's own zone is honoured, not _defaultZone.
            let honoured = try await create("filed", recordZone: "Work", requestZone: nil)
            #expect(honoured.status == 200)
            #expect(honoured.json.record(0)?["zoneID"]?["zoneName"] == "Work")
            #expect(try await HostileInputTests.lookup(fixture, client, "filed", zone: "Work", database: "private", webAuthToken: user.webAuthToken) != nil)
            #expect(try await HostileInputTests.lookup(fixture, client, "filed", database: "private", webAuthToken: user.webAuthToken) == nil)
        }
    }

    @Test(arguments: [
        (#"{"value": "x", "type": "FOO"}"#, "'FOO' is not a field type"),
        (#"{"value": "x", "type": ""}"#, "'' is not a field type"),
        (#"{"value": "x", "type": "string"}"#, "'string' is not a field type"),
        (#"{"value": [[1]], "type": "INT64_LIST_LIST"}"#, "'INT64_LIST_LIST' is not a field type"),
        (#"{"value": true, "type": "TIMESTAMP"}"#, "expected a TIMESTAMP value"),
        (#"{"type": "STRING"}"#, "value: is required"),
        (#"{}"#, "value: is required"),
        (#"{"value": "x", "type": "LIST"}"#, "expected a list"),
    ])
    func badFieldTypeTagsAreRefusedNamingTheField(_ field: String, _ problem: String) async throws {
        try await RouterFixture.run { fixture, client in
            let body = #"{"operations": [{"operationType": "create", "record": {"recordName": "typed", "recordType": "Note", "fields": {"when": \#(field)}}}]}"#
            let response = try await client.call(fixture.path("records/modify"), body: body)
            // A per-record error, as CKWS answers each operation of a batch.
            #expect(response.status == 200)
            let error = try #require(response.json.record(0))
            #expect(error["serverErrorCode"] == "BAD_REQUEST", "\(field)")
            let reason = error["reason"]?.stringValue ?? ""
            #expect(reason.contains("when") && reason.contains(problem), "\(field): \(reason)")
            #expect(try await HostileInputTests.lookup(fixture, client, "typed") == nil)
        }
    }

    @Test func booleansAreStillCloudKitsInt64() async throws {
        try await RouterFixture.run { fixture, client in
            let response = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "flags", "recordType": "Note", "fields": ["done": ["value": true], "seen": ["value": false, "type": "INT64"]],
                            ],
                        ]
                    ]
                ])
            #expect(response.status == 200)
            #expect(response.json.record(0)?["fields"]?["done"] == ["value": 1, "type": "INT64"])
            #expect(response.json.record(0)?["fields"]?["seen"] == ["value": 0, "type": "INT64"])
        }
    }

    @Test func queriesHaveLimitsAndFieldNamesAreChecked() async throws {
        try await RouterFixture.run { fixture, client in
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["q1"]))
            func query(_ filters: [JSONValue]) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
                try await client.call(fixture.path("records/query"), json: ["query": ["recordType": "Note", "filterBy": .array(filters)]])
            }
            let manyValues = JSONValue.array((0..<100_000).map { .string("v\($0)") })
            let bigIn = try await query([["comparator": "IN", "fieldName": "title", "fieldValue": ["value": manyValues]]])
            expectError(bigIn, status: 400, code: "BAD_REQUEST", reasonContains: ["100000 values", "limit is 1000"])
            let manyFilters = try await query((0..<1000).map { _ in ["comparator": "EQUALS", "fieldName": "title", "fieldValue": ["value": "x"]] })
            expectError(manyFilters, status: 400, code: "BAD_REQUEST", reasonContains: ["1000 filters", "limit is 50"])
            for name in ["", "title; DROP TABLE records", "x' OR '1'='1", "\u{0}"] {
                let response = try await query([["comparator": "EQUALS", "fieldName": .string(name), "fieldValue": ["value": "x"]]])
                expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["fieldName", "field name"])
            }
            let sortedBadly = try await client.call(
                fixture.path("records/query"),
                json: ["query": ["recordType": "Note", "sortBy": [["fieldName": "1=1"]]]])
            expectError(sortedBadly, status: 400, code: "BAD_REQUEST", reasonContains: ["field name"])
            // Within the limits the query still answers.
            let fine = try await query([["comparator": "IN", "fieldName": "title", "fieldValue": ["value": ["title of q1", "other"]]]])
            #expect(fine.status == 200)
            #expect(fine.json.record(0)?["recordName"] == "q1")
        }
    }

    @Test(arguments: ["[]", #""everyone""#, "42", "null", "true"])
    func userDiscoveryRefusesABodyThatIsNotAnObject(_ body: String) async throws {
        try await RouterFixture.run { fixture, client in
            _ = try await fixture.engine.createUser(
                name: "Open Person", container: RouterFixture.container,
                options: NewUserOptions(email: "open@example.com", discoverable: true))
            let response = try await client.call(fixture.path("users/discover"), body: body)
            expectError(response, status: 400, code: "BAD_REQUEST", reasonContains: ["JSON object"])
            #expect(response.json["users"] == nil)
        }
    }

    @Test func usersRecordsAreMadeByTheServerOnly() async throws {
        try await RouterFixture.run { fixture, client in
            let forged = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "fake-user", "recordType": "Users", "fields": ["name": ["value": "Admin"]],
                            ],
                        ]
                    ]
                ])
            #expect(forged.json.record(0)?["serverErrorCode"] == "BAD_REQUEST")
            #expect(forged.json.record(0)?["reason"]?.stringValue?.contains("made by the server") == true)
            #expect(try await HostileInputTests.lookup(fixture, client, "fake-user") == nil)
        }
    }

    @Test func changeFetchingIsRefusedInThePrivateDefaultZone() async throws {
        try await RouterFixture.run { fixture, client in
            let token = fixture.writer.webAuthToken
            let legacy = try await client.call(
                fixture.path("records/changes", database: "private", webAuthToken: token),
                json: ["zoneID": ["zoneName": "_defaultZone"]])
            expectError(legacy, status: 400, code: "BAD_REQUEST", reasonContains: ["custom zones"])
            let perZone = try await client.call(
                fixture.path("changes/zone", database: "private", webAuthToken: token),
                json: ["zones": [["zoneID": ["zoneName": "_defaultZone"]]]])
            #expect(perZone.status == 200)
            #expect(perZone.json["zones"]?[0]?["serverErrorCode"] == "BAD_REQUEST")
            #expect(perZone.json["zones"]?[0]?["reason"]?.stringValue?.contains("custom zones") == true)
        }
    }

    @Test func anAnonymousLookupOfARecordOnlyUsersMayReadIs421() async throws {
        try await RouterFixture.run { fixture, client in
            try await fixture.engine.grant(
                [.create, .read], on: "Memo", to: BuiltInRole.authenticated,
                container: RouterFixture.container, environment: .development)
            try await fixture.engine.grant([], on: "Memo", to: BuiltInRole.world, container: RouterFixture.container, environment: .development)
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["m1"], type: "Memo"))
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["n1"]))
            let anonymous = try await client.call(
                fixture.path("records/lookup", anonymous: true),
                json: ["records": [["recordName": "n1"], ["recordName": "m1"]]])
            #expect(anonymous.status == 421)
            #expect(anonymous.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            #expect(anonymous.json["redirectURL"]?.stringValue?.contains("/signin") == true)
        }
    }

    @Test func aPushTokenCannotBeTakenOverByAnotherUser() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .milliseconds(300))) { fixture, client in
            let courier = try await CourierTests.courier(fixture, client)
            let token = Data(try #require(hexBytes(String(courier.dropFirst("/webcourier/1/".count))))).base64EncodedString()
            let mallory = try await fixture.engine.createUser(name: "Mallory", container: RouterFixture.container)
            let takeover = try await client.call(
                fixture.path("tokens/register", webAuthToken: mallory.webAuthToken),
                json: ["apnsEnvironment": "development", "apnsToken": .string(token)])
            #expect(takeover.status == 403)
            #expect(takeover.json["serverErrorCode"] == "ACCESS_DENIED")
            // The owner's subscription still delivers to the owner's courier.
            try await CourierTests.subscribe(fixture, client, ["mine"])
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["after"]))
            let frame = try await client.call(courier, method: .get)
            #expect(frame.status == 200)
            #expect(frame.json["ck"]?["qry"]?["sid"] == "mine")
        }
    }
}

/// Bytes of a lowercase hex string.
private func hexBytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }
}

import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Two users write into their private databases with the same record and zone names; neither
/// can read, query, list zones of, or modify the other's, and outsiders learn nothing.
@Suite struct PrivateIsolationTests {
    @Test func twoUsersWithTheSameNamesNeverSeeEachOthersData() async throws {
        try await RouterFixture.run { fixture, client in
            let ann = try await fixture.engine.createUser(name: "Ann", container: RouterFixture.container)
            let bob = try await fixture.engine.createUser(name: "Bob", container: RouterFixture.container)
            func path(_ operation: String, _ user: CreatedUser) -> String {
                fixture.path(operation, database: "private", webAuthToken: user.webAuthToken)
            }
            for (user, text) in [(ann, "ann's diary"), (bob, "bob's diary")] {
                let zone = try await client.call(
                    path("zones/modify", user),
                    json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Diary"]]]]])
                #expect(zone.status == 200)
                let created = try await client.call(
                    path("records/modify", user),
                    json: [
                        "zoneID": ["zoneName": "Diary"],
                        "operations": [
                            [
                                "operationType": "create",
                                "record": ["recordName": "entry", "recordType": "Entry", "fields": ["text": ["value": .string(text)]]],
                            ]
                        ],
                    ])
                #expect(created.json.record(0)?["serverErrorCode"] == nil)
            }
            let annOnly = try await client.call(
                path("zones/modify", ann),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "AnnOnly"]]]]])
            #expect(annOnly.status == 200)

            // Read: each sees their own record under the shared name.
            for (user, text) in [(ann, "ann's diary"), (bob, "bob's diary")] {
                let lookup = try await client.call(
                    path("records/lookup", user),
                    json: ["zoneID": ["zoneName": "Diary"], "records": [["recordName": "entry"]]])
                #expect(lookup.json.record(0)?["fields"]?["text"]?["value"]?.stringValue == text)
                let query = try await client.call(
                    path("records/query", user),
                    json: ["zoneID": ["zoneName": "Diary"], "query": ["recordType": "Entry"]])
                #expect(query.json["records"]?.arrayValue?.compactMap { $0["fields"]?["text"]?["value"]?.stringValue } == [text])
            }
            // List zones: Bob does not see Ann's extra zone, and cannot look it up.
            let bobZones = try await client.call(path("zones/list", bob), method: .get)
            let names = Set(bobZones.json["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue } ?? [])
            #expect(names == ["_defaultZone", "Diary"])
            let bobLooksUp = try await client.call(path("zones/lookup", bob), json: ["zones": [["zoneName": "AnnOnly"]]])
            #expect(bobLooksUp.json["zones"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND")

            // Naming Ann as the zone owner is refused the same way whether or not the zone exists.
            for zoneName in ["Diary", "NoSuchZone"] {
                let foreign = try await client.call(
                    path("records/lookup", bob),
                    json: [
                        "zoneID": ["zoneName": .string(zoneName), "ownerRecordName": .string(ann.userRecordName)],
                        "records": [["recordName": "entry"]],
                    ])
                #expect(foreign.status == 403)
                #expect(foreign.json["serverErrorCode"] == "ACCESS_DENIED")
                #expect(foreign.json["reason"]?.stringValue?.contains(ann.userRecordName) == false)
            }
            let foreignWrite = try await client.call(
                path("records/modify", bob),
                json: [
                    "zoneID": ["zoneName": "Diary", "ownerRecordName": .string(ann.userRecordName)],
                    "operations": [["operationType": "forceDelete", "record": ["recordName": "entry"]]],
                ])
            #expect(foreignWrite.json["serverErrorCode"] == "ACCESS_DENIED")
            // Bob deleting "entry" deletes his own; Ann's stays.
            let bobDeletes = try await client.call(
                path("records/modify", bob),
                json: [
                    "zoneID": ["zoneName": "Diary"], "operations": [["operationType": "forceDelete", "record": ["recordName": "entry"]]],
                ])
            #expect(bobDeletes.json.record(0)?["deleted"] == true)
            let annStill = try await client.call(
                path("records/lookup", ann),
                json: ["zoneID": ["zoneName": "Diary"], "records": [["recordName": "entry"]]])
            #expect(annStill.json.record(0)?["fields"]?["text"]?["value"] == "ann's diary")

            // Anonymous callers are sent to sign in, and the answer says nothing about what exists.
            let anonymous = try await client.call(
                fixture.path("records/lookup", database: "private"),
                json: ["zoneID": ["zoneName": "Diary"], "records": [["recordName": "entry"]]])
            #expect(anonymous.status == 421)
            #expect(anonymous.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            #expect(anonymous.json["redirectURL"]?.stringValue?.contains("/signin") == true)
            #expect(anonymous.json["records"] == nil)
        }
    }

    @Test func usersCallerAnswersBothClientStyles() async throws {
        try await RouterFixture.run { fixture, client in
            let ann = try await fixture.engine.createUser(
                name: "Ann Example", container: RouterFixture.container,
                options: NewUserOptions(email: "Ann@Example.com"))
            for operation in ["users/caller", "users/current"] {
                let response = try await client.call(fixture.path(operation, webAuthToken: ann.webAuthToken), method: .get)
                #expect(response.status == 200)
                #expect(response.json["userRecordName"]?.stringValue == ann.userRecordName)
                #expect(response.json["firstName"] == "Ann")
                #expect(response.json["lastName"] == "Example")
                #expect(response.json["emailAddress"] == "ann@example.com")
                #expect(response.json["users"]?[0]?["userRecordName"]?.stringValue == ann.userRecordName)
            }
            let anonymous = try await client.call(fixture.path("users/caller", anonymous: true), method: .get)
            #expect(anonymous.status == 421)
            #expect(anonymous.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            #expect(anonymous.json["redirectURL"]?.stringValue?.contains("/signin?container=\(RouterFixture.container)&token=") == true)
        }
    }

    @Test func revokedTokensStopWorking() async throws {
        try await RouterFixture.run { fixture, client in
            let second = try await fixture.engine.createAPIToken(container: RouterFixture.container)
            let listed = try await fixture.engine.apiTokens(container: RouterFixture.container)
            #expect(listed.count == 2)
            #expect(listed.allSatisfy { $0.id.count == 16 && !second.hasPrefix($0.id) })
            let before = try await client.call(fixture.path("zones/list", apiToken: second), method: .get)
            #expect(before.status == 200)
            try await fixture.engine.revokeAPIToken(container: RouterFixture.container, idOrToken: second)
            let after = try await client.call(fixture.path("zones/list", apiToken: second), method: .get)
            #expect(after.status == 401)
            #expect(after.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            #expect(after.json["reason"]?.stringValue?.contains(second) == false)
            #expect(try await fixture.engine.apiTokens(container: RouterFixture.container).count == 1)
            let stillValid = try await client.call(fixture.path("zones/list"), method: .get)
            #expect(stillValid.status == 200)
        }
    }
}

/// Each user has a `Users` record in the public database, as in CloudKit.
@Suite struct UserRecordTests {
    @Test func everyUserHasAUsersRecordTheyCreated() async throws {
        try await RouterFixture.run { fixture, client in
            let ann = try await fixture.engine.createUser(name: "Ann", container: RouterFixture.container)
            for environment in ["development", "production"] {
                let lookup = try await client.call(
                    fixture.path("records/lookup", environment: environment, anonymous: true),
                    json: ["records": [["recordName": .string(ann.userRecordName)]]])
                #expect(lookup.json.record(0)?["recordType"] == "Users", "\(environment): \(lookup.json)")
                #expect(lookup.json.record(0)?["created"]?["userRecordName"]?.stringValue == ann.userRecordName)
            }
        }
    }
}

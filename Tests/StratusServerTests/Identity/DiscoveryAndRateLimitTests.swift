import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// User discovery (opt-in) and published rate limits.
@Suite struct DiscoveryAndRateLimitTests {
    @Test func onlyUsersWhoOptedInAreDiscoverable() async throws {
        try await RouterFixture.run { fixture, client in
            let container = RouterFixture.container
            let ann = try await fixture.engine.createUser(
                name: "Ann Example", container: container,
                options: NewUserOptions(email: "ann@example.com", discoverable: true))
            let bob = try await fixture.engine.createUser(
                name: "Bob Hidden", container: container,
                options: NewUserOptions(email: "bob@example.com", discoverable: false))
            let caller = try await fixture.engine.createUser(name: "Cy", container: container)
            func call(_ operation: String, _ body: JSONValue?) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
                let path = fixture.path(operation, webAuthToken: caller.webAuthToken)
                return body.map { _ in () } == nil ? try await client.call(path, method: .get) : try await client.call(path, json: body!)
            }
            let byEmail = try await call(
                "users/lookup/email",
                [
                    "users": [
                        ["emailAddress": "ANN@example.com"], ["emailAddress": "bob@example.com"],
                        ["emailAddress": "nobody@example.com"],
                    ]
                ])
            #expect(byEmail.status == 200)
            let users = byEmail.json["users"]?.arrayValue ?? []
            #expect(users.count == 3)
            #expect(users[safe: 0]?["userRecordName"]?.stringValue == ann.userRecordName)
            #expect(users[safe: 0]?["nameComponents"]?["givenName"] == "Ann")
            #expect(users[safe: 0]?["emailAddress"] == nil)
            // Bob did not opt in: he looks exactly like an address nobody uses.
            #expect(users[safe: 1] == ["lookupInfo": ["emailAddress": "bob@example.com"]])
            #expect(users[safe: 2] == ["lookupInfo": ["emailAddress": "nobody@example.com"]])

            let byID = try await call("users/lookup/id", ["users": [["userRecordName": .string(ann.userRecordName)], ["userRecordName": .string(bob.userRecordName)]]])
            #expect(byID.json["users"]?[0]?["userRecordName"]?.stringValue == ann.userRecordName)
            #expect(byID.json["users"]?[1]?["userRecordName"] == nil)
            let discoverPost = try await call("users/discover", ["lookupInfos": [["emailAddress": "ann@example.com"], ["phoneNumber": "+15555550100"]]])
            #expect(discoverPost.json["users"]?[0]?["userRecordName"]?.stringValue == ann.userRecordName)
            #expect(discoverPost.json["users"]?[1] == ["lookupInfo": ["phoneNumber": "+15555550100"]])
            let discoverAll = try await call("users/discover", nil)
            #expect(discoverAll.json["users"]?.arrayValue?.compactMap { $0["userRecordName"]?.stringValue } == [ann.userRecordName])
            let contacts = try await call("users/lookup/contacts", ["contacts": [["emailAddresses": ["bob@example.com", "ann@example.com"]]]])
            #expect(contacts.json["users"]?.arrayValue?.compactMap { $0["userRecordName"]?.stringValue } == [ann.userRecordName])

            let bad = try await call("users/lookup/email", ["users": [["phone": "1"]]])
            #expect(bad.status == 400)
            #expect(bad.json["reason"]?.stringValue?.contains("emailAddress") == true)
            let anonymous = try await client.call(fixture.path("users/lookup/email", anonymous: true), json: ["users": []])
            #expect(anonymous.status == 421)
        }
    }

    @Test func budgetsArePublishedAndOverspendingIsThrottled() async throws {
        // 0.001 per second: a request refills in 1,000 s, so the numbers below hold even when the
        // requests are many seconds apart on a loaded machine (0.01 failed in a full-suite run).
        let configuration = ServerConfiguration(rateLimits: RateLimitConfiguration(perSecond: 0.001, burst: 3))
        try await RouterFixture.run(configuration: configuration) { fixture, client in
            let remaining = HTTPField.Name("RateLimit-Remaining")!
            for expected in ["2", "1", "0"] {
                let response = try await client.call(fixture.path("zones/list"), method: .get)
                #expect(response.status == 200)
                #expect(response.headers[remaining] == expected)
                #expect(response.headers[HTTPField.Name("RateLimit-Limit")!] == "3")
            }
            let throttled = try await client.call(fixture.path("zones/list"), method: .get)
            #expect(throttled.status == 429)
            #expect(throttled.json["serverErrorCode"] == "THROTTLED")
            // One request refills in 1,000 s at 0.001 per second; a little of it has passed already.
            let retryAfter = try #require(throttled.json["retryAfter"]?.int64Value)
            #expect(retryAfter > 900 && retryAfter <= 1000)
            #expect(throttled.headers[.retryAfter] == String(retryAfter))
            #expect(throttled.headers[remaining] == "0")
            // Budgets are per user: someone else is not affected.
            let other = try await fixture.engine.createUser(name: "Other", container: RouterFixture.container)
            let unaffected = try await client.call(fixture.path("zones/list", webAuthToken: other.webAuthToken), method: .get)
            #expect(unaffected.status == 200)
        }
    }
}

@Suite struct AnonymousBudgetTests {
    @Test func anonymousCallersOfATokenShareABudgetTwentyTimesAUsers() async throws {
        let configuration = ServerConfiguration(rateLimits: RateLimitConfiguration(perSecond: 0.01, burst: 3))
        try await RouterFixture.run(configuration: configuration) { fixture, client in
            let response = try await client.call(fixture.path("zones/list", anonymous: true), method: .get)
            #expect(response.status == 200)
            #expect(response.headers[HTTPField.Name("RateLimit-Limit")!] == "60")
            #expect(response.headers[HTTPField.Name("RateLimit-Remaining")!] == "59")
        }
    }
}

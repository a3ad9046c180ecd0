import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// Resetting development from the Schema screen: it says what will be lost, needs the
/// container's name typed, then leaves development with production's schema and no data, while
/// production and the user's sign-in are untouched.
@Suite struct ConsoleDevelopmentResetTests {
    @Test func resetDevelopmentDeletesItsDataAndTakesProductionsSchema() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let song: JSONValue = ["operations": [["operationType": "create", "record": ["recordType": "Song", "recordName": "one", "fields": ["title": ["value": "One"]]]]]]
            #expect(try await client.call(fixture.path("records/modify"), json: song).status == 200)
            try await fixture.engine.deploySchema(container: RouterFixture.container)
            #expect(try await client.call(fixture.path("records/modify", environment: "production"), json: song).status == 200)
            // Development moves on: a new field, a private zone with a record, a subscription.
            _ = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Song", "recordName": "two", "fields": ["title": ["value": "Two"], "extra": ["value": 1]],
                            ],
                        ]
                    ]
                ])
            let privatePath = fixture.path("zones/modify", database: "private", webAuthToken: fixture.writerToken)
            #expect(try await client.call(privatePath, json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]]).status == 200)
            #expect(
                try await client.call(
                    fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken),
                    json: [
                        "zoneID": ["zoneName": "Notes"], "operations": [["operationType": "create", "record": ["recordType": "Note", "fields": ["text": ["value": "hi"]]]]],
                    ]
                ).status == 200)
            try await CourierTests.subscribe(fixture, client, ["s1"])

            let page = try await browser.get("/console/schema?c=\(RouterFixture.container)")
            let csrf = try #require(page.csrf)
            let loss = try #require(page.body.range(of: "<p id=\"reset-loss\">")).upperBound
            let words = String(page.body[loss...].prefix { $0 != "<" })
            // "one", "two", "seed" (from subscribe) in public and the private note.
            #expect(words.contains("every development record (4 now") && words.contains("1 custom zone ") && words.contains("1 subscription,"))

            let scope = [("c", RouterFixture.container), ("env", "development"), ("csrf", csrf)]
            let unconfirmed = try await browser.post("/console/schema/reset", scope + [("confirm", "yes")])
            #expect(unconfirmed.status == 400 && unconfirmed.body.contains("type the container"))
            #expect(try await fixture.engine.developmentFootprint(container: RouterFixture.container).records == 4, "nothing changed")

            #expect(try await browser.post("/console/schema/reset", scope + [("confirm", RouterFixture.container)]).status == 303)
            let development = try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development)
            let production = try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .production)
            #expect(development == production && development.recordTypes["Song"]?.fields["extra"] == nil)
            let query = #"{"query": {"recordType": "Song"}}"#
            #expect(try await client.call(fixture.path("records/query"), body: query).json["records"]?.arrayValue?.isEmpty == true)
            let inProduction = try await client.call(fixture.path("records/lookup", environment: "production"), json: ["records": [["recordName": "one"]]])
            #expect(inProduction.json["records"]?[0]?["fields"]?["title"]?["value"] == "One", "production keeps its records")
            let zones = try await client.call(fixture.path("zones/list", database: "private", webAuthToken: fixture.writerToken), method: .get)
            #expect(zones.status == 200 && zones.json["zones"]?.arrayValue?.contains { $0["zoneID"]?["zoneName"] == "Notes" } == false)
            #expect(try await client.call(fixture.path("subscriptions/list"), method: .get).json["subscriptions"]?.arrayValue?.isEmpty == true)
            #expect(try await client.call(fixture.path("users/caller"), method: .get).status == 200, "the user still signs in")
            #expect(try await fixture.engine.consoleAudit().map(\.action).contains("environment.reset"))
        }
    }
}

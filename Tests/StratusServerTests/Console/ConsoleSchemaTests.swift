import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// The schema screen: an index added in development, a schema file's changes shown before they
/// are applied, and a deploy that lists what it adds and then makes production serve it.
@Suite struct ConsoleSchemaTests {
    @Test func indexesUploadsAndDeployChangeTheSchemaTheAPISees() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let saved = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Song", "fields": ["title": ["value": "One"], "plays": ["value": 3]],
                            ],
                        ]
                    ]
                ])
            #expect(saved.status == 200)
            let scope = [("c", RouterFixture.container), ("env", "development")]
            let page = try await browser.get("/console/schema?c=\(RouterFixture.container)")
            let csrf = try #require(page.csrf)
            #expect(page.body.contains("+ record type Song") && page.body.contains("+ field Song.plays INT64"))
            // Production has no index on plays: the query is refused until the deploy.
            let query: JSONValue = ["query": ["recordType": "Song", "filterBy": [["fieldName": "plays", "comparator": "EQUALS", "fieldValue": ["value": 3]]]]]
            #expect(try await client.call(fixture.path("records/query", environment: "production"), json: query).status == 400)
            let indexed = try await browser.post("/console/schema/index", scope + [("csrf", csrf), ("type", "Song"), ("field", "plays"), ("index", "QUERYABLE")])
            #expect(indexed.status == 303)
            let schema = try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development)
            #expect(schema.recordTypes["Song"]?.fields["plays"]?.indexes.contains(.queryable) == true)
            // An uploaded file is shown as a diff first; nothing changes until it is applied.
            let file = "DEFINE SCHEMA\n  RECORD TYPE Album (\n    \"name\" STRING QUERYABLE\n  );\n"
            let diff = try await browser.post("/console/schema/upload", scope + [("csrf", csrf), ("ckdb", file)])
            #expect(diff.body.contains("+ record type Album") && diff.body.contains("+ field Album.name STRING QUERYABLE"))
            #expect(try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development).recordTypes["Album"] == nil)
            #expect(try await browser.post("/console/schema/upload", scope + [("csrf", csrf), ("ckdb", file), ("apply", "1")]).status == 303)
            #expect(try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development).recordTypes["Album"] != nil)
            // Deploy: production now answers the query.
            #expect(try await browser.post("/console/schema/deploy", scope + [("csrf", csrf)]).status == 303)
            #expect(try await client.call(fixture.path("records/query", environment: "production"), json: query).status == 200)
            let actions = try await fixture.engine.consoleAudit().map(\.action)
            #expect(actions.contains("schema.index.add") && actions.contains("schema.upload") && actions.contains("schema.deploy"))
        }
    }
}

/// Adding a record type and a field by hand, before any record of it exists: the API then saves
/// records of it and refuses a value of another type; names that could break the schema line and
/// a field that already exists are refused with what is wrong.
@Suite struct ConsoleAddFieldTests {
    @Test func aFieldAddedInTheConsoleShapesWhatTheAPIAccepts() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let scope = [("c", RouterFixture.container), ("env", "development")]
            let page = try await browser.get("/console/schema?c=\(RouterFixture.container)")
            #expect(page.body.contains("id=\"add-field\""))
            let csrf = try #require(page.csrf)
            let added = try await browser.post("/console/schema/field", scope + [("csrf", csrf), ("type", "Book"), ("field", "pages"), ("fieldType", "INT64")])
            #expect(added.status == 303)
            let schema = try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development)
            #expect(schema.recordTypes["Book"]?.fields["pages"]?.type.description == "INT64")
            let wrongType = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Book", "fields": ["pages": ["value": "many"]],
                            ],
                        ]
                    ]
                ])
            #expect(wrongType.json.record(0)?["serverErrorCode"] != nil, "a string for an INT64 field is refused: \(wrongType.json)")
            let right = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Book", "fields": ["pages": ["value": 320]],
                            ],
                        ]
                    ]
                ])
            #expect(right.status == 200 && right.json.record(0)?["serverErrorCode"] == nil, "\(right.json)")

            let injected = try await browser.post("/console/schema/field", scope + [("csrf", csrf), ("type", "Book"), ("field", "x\" STRING ); CREATE ROLE r"), ("fieldType", "STRING")])
            #expect(injected.status != 303 && injected.body.contains("must start with a letter"), "\(injected.status)")
            let retyped = try await browser.post("/console/schema/field", scope + [("csrf", csrf), ("type", "Book"), ("field", "pages"), ("fieldType", "STRING")])
            #expect(retyped.status != 303 && retyped.body.contains("already exists as INT64"))
            let actions = try await fixture.engine.consoleAudit().map(\.action)
            #expect(actions.filter { $0 == "schema.field.add" }.count == 1)
        }
    }
}

/// The zones screen on a user's private database: a zone made in the console holds what the
/// app saves, and its change feed lists it.
@Suite struct ConsoleZonesTests {
    @Test func aPrivateZoneIsCreatedListedAndReplayed() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let user = fixture.writer.userRecordName
            let asked = try await browser.get("/console/zones?c=\(RouterFixture.container)&db=private")
            #expect(asked.status == 200 && asked.body.contains("Choose a user to act as."))
            let created = try await browser.post(
                "/console/zones/create",
                [
                    ("csrf", try #require(asked.csrf)), ("c", RouterFixture.container),
                    ("db", "private"), ("as", user), ("zone", "Notes"),
                ])
            #expect(created.status == 303)
            let saved = try await client.call(
                fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken),
                json: [
                    "zoneID": ["zoneName": "Notes"],
                    "operations": [["operationType": "create", "record": ["recordType": "Note", "recordName": "first-note", "fields": ["text": ["value": "hi"]]]]],
                ])
            #expect(saved.status == 200 && saved.json.record(0)?["serverErrorCode"] == nil)
            let list = try await browser.get("/console/zones?c=\(RouterFixture.container)&db=private&as=\(user)")
            #expect(list.body.contains(">Notes</a>"))
            let changes = try await browser.get("/console/zones?c=\(RouterFixture.container)&db=private&as=\(user)&zone=Notes&since=start")
            #expect(changes.status == 200)
            #expect(changes.body.contains(">first-note</a>") && changes.body.contains("id=\"sync-token\""))
            #expect(try await fixture.engine.consoleAudit().first?.action == "zone.create")
        }
    }
}

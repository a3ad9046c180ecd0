import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// The records screen through the router: hostile record content stays text, queries page and
/// filter through the engine, edits meet conflicts, deletes count their cascade.
@Suite struct ConsoleRecordsTests {
    static let hostile = #"<script>window.pwned=1</script><img src=x onerror="window.pwned=2">"#

    static func signedIn(_ fixture: RouterFixture, _ client: any TestClientProtocol) async throws -> ConsoleClient {
        try await ConsoleAuthTests.addOperator(fixture)
        var browser = ConsoleClient(client: client)
        _ = try await browser.signIn(email: ConsoleAuthTests.email, password: ConsoleAuthTests.password)
        return browser
    }

    func save(_ fixture: RouterFixture, _ client: any TestClientProtocol, _ records: [JSONValue]) async throws {
        let operations: [JSONValue] = records.map { .object(["operationType": "create", "record": $0]) }
        let saved = try await client.call(fixture.path("records/modify"), json: .object(["operations": .array(operations)]))
        #expect(saved.status == 200)
    }

    @Test func hostileFieldValuesAreShownAsText() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await Self.signedIn(fixture, client)
            try await save(
                fixture, client,
                [
                    ["recordType": "Note", "recordName": "target", "fields": ["title": ["value": "plain"]]],
                    [
                        "recordType": "Note", "recordName": "evil\"><b>x",
                        "fields": [
                            "title": ["value": .string(Self.hostile)],
                            "link": ["value": "javascript:alert(1)"],
                            "ref": ["value": ["recordName": "javascript:alert(1)", "action": "NONE"]],
                        ],
                    ],
                ])
            let list = try await browser.get("/console/records?c=\(RouterFixture.container)&type=Note")
            #expect(list.status == 200)
            #expect(!list.body.contains("<script>window") && !list.body.contains("<img src=x"))
            #expect(list.body.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;"))
            #expect(!list.body.contains("evil\"><b>"))
            #expect(!list.body.contains("href=\"javascript:"))
            let record = try await browser.get("/console/record?c=\(RouterFixture.container)&zone=_defaultZone&name=evil%22%3E%3Cb%3Ex")
            #expect(record.status == 200)
            #expect(!record.body.contains("<script>window") && !record.body.contains("onerror=\"window"))
            // A reference's link stays inside the console whatever the target's name.
            #expect(record.body.contains("href=\"/console/record?c=\(RouterFixture.container)&amp;env=development&amp;db=public&amp;zone=_defaultZone&amp;name=javascript%3Aalert%281%29\""))
        }
    }

    @Test func filtersSortsAndPagesThroughTheEngine() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await Self.signedIn(fixture, client)
            let records: [JSONValue] = (1...60).map { index in
                [
                    "recordType": "Movie", "recordName": .string(String(format: "movie-%02d", index)),
                    "fields": ["rating": ["value": .int(Int64(index % 5))], "title": ["value": .string("Movie \(index)")]],
                ]
            }
            try await save(fixture, client, records)
            let base = "/console/records?c=\(RouterFixture.container)&type=Movie"
            let first = try await browser.get(base + "&sort=___recordID")
            #expect(first.status == 200)
            #expect(first.body.components(separatedBy: "class=\"record-link\"").count - 1 == 50)
            let next = try #require(first.body.range(of: #"id="next-page" href="[^"]+""#, options: .regularExpression))
            let nextPath = String(first.body[next].dropFirst(#"id="next-page" href=""#.count).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
            let second = try await browser.get(nextPath)
            #expect(second.body.components(separatedBy: "class=\"record-link\"").count - 1 == 10)
            #expect(second.body.contains("movie-60") && !second.body.contains(">movie-01<"))
            // rating == 3 (typed as a number from the schema), sorted by title descending.
            let filtered = try await browser.get(base + "&ff=rating&fo=EQUALS&fv=3&sort=title&dir=desc")
            #expect(filtered.body.components(separatedBy: "class=\"record-link\"").count - 1 == 12)
            let order = ["Movie 8", "Movie 58", "Movie 53"].compactMap { filtered.body.range(of: ">\($0)<")?.lowerBound }
            #expect(order.count == 3 && order == order.sorted())
            // The API preview shows the request the screen ran.
            #expect(filtered.body.contains("records/query?ckAPIToken=$STRATUS_API_TOKEN"))
            #expect(filtered.body.contains(#"NSPredicate(format: &quot;rating == %@&quot;, 3)"#))
        }
    }

    @Test func anEditMeetingANewerVersionShowsBothAndDeleteCountsItsCascade() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            var browser = try await Self.signedIn(fixture, client)
            try await save(
                fixture, client,
                [
                    ["recordType": "Folder", "recordName": "folder", "fields": ["name": ["value": "Inbox"]]],
                    ["recordType": "Item", "recordName": "item-1", "fields": ["folder": ["value": ["recordName": "folder", "action": "DELETE_SELF"]]]],
                    ["recordType": "Item", "recordName": "item-2", "fields": ["folder": ["value": ["recordName": "folder", "action": "DELETE_SELF"]]]],
                ])
            let page = try await browser.get("/console/record?c=\(RouterFixture.container)&name=folder")
            #expect(page.body.contains("2 other records that reference it with DELETE_SELF will be deleted with it"))
            let tag = try #require(page.body.range(of: #"name="tag" value="[^"]+""#, options: .regularExpression))
            let changeTag = String(page.body[tag].dropFirst(#"name="tag" value=""#.count).dropLast())
            // Someone else saves the folder meanwhile.
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "folder"]]])
            let current = try #require(lookup.json.record(0)?["recordChangeTag"]?.stringValue)
            let other = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "update",
                            "record": [
                                "recordName": "folder", "recordType": "Folder", "recordChangeTag": .string(current), "fields": ["name": ["value": "Theirs"]],
                            ],
                        ]
                    ]
                ])
            #expect(other.status == 200)
            let form: [(String, String)] = [
                ("csrf", try #require(page.csrf)), ("c", RouterFixture.container), ("env", "development"), ("db", "public"),
                ("zone", "_defaultZone"), ("type", "Folder"), ("name", "folder"), ("tag", changeTag),
                ("fields", #"{"name": {"value": "Mine"}}"#),
            ]
            let conflict = try await browser.post("/console/record/save", form)
            #expect(conflict.status == 409)
            #expect(conflict.body.contains("Theirs") && conflict.body.contains("Mine"))
            // Choosing "mine" saves over it.
            let mine = try await browser.post("/console/record/save", form.filter { $0.0 != "tag" } + [("force", "1")])
            #expect(mine.status == 303)
            let after = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "folder"]]])
            #expect(after.json.record(0)?["fields"]?["name"]?["value"] == "Mine")
            // Delete takes the two items along, as announced, and is audited.
            let deleted = try await browser.post(
                "/console/record/delete",
                [
                    ("csrf", try #require(page.csrf)), ("c", RouterFixture.container),
                    ("zone", "_defaultZone"), ("name", "folder"),
                ])
            #expect(deleted.status == 200)
            let gone = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "item-1"], ["recordName": "item-2"]]])
            #expect(gone.json.record(0)?["serverErrorCode"] == "NOT_FOUND" && gone.json.record(1)?["serverErrorCode"] == "NOT_FOUND")
            let actions = try await fixture.engine.consoleAudit().map(\.action)
            #expect(actions.contains("record.update") && actions.contains("record.delete"))
        }
    }
}

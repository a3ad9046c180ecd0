import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// The console's actions on keys, users and indexes: each changes what the API does, is
/// audited, and refuses a form without the session's CSRF token.
@Suite struct ConsoleActionsTests {
    static let scope = [("c", RouterFixture.container), ("env", "development")]

    @Test func aServerKeyIsAddedWithItsRightAndRevoked() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let page = try await browser.get("/console/tokens?c=\(RouterFixture.container)")
            let csrf = try #require(page.csrf)
            #expect(page.body.contains("No server-to-server keys."))
            let notAKey = try await browser.post("/console/keys/add", Self.scope + [("csrf", csrf), ("pem", "hello")])
            #expect(notAKey.status == 400 && notAKey.body.contains("not a PEM P-256 public key"))
            let pem = P256.Signing.PrivateKey().publicKey.pemRepresentation
            let added = try await browser.post("/console/keys/add", Self.scope + [("csrf", csrf), ("pem", pem), ("actAsUsers", "1")])
            #expect(added.status == 200)
            let keys = try await fixture.engine.serverKeys(container: RouterFixture.container)
            try #require(keys.count == 1)
            #expect(keys[0].actAsUsers && added.body.contains(keys[0].keyID))
            #expect(try await browser.get("/console/tokens?c=\(RouterFixture.container)").body.contains(keys[0].keyID))
            let revoked = try await browser.post("/console/keys/revoke", Self.scope + [("csrf", csrf), ("key", keys[0].keyID)])
            #expect(revoked.status == 303)
            #expect(try await fixture.engine.serverKeys(container: RouterFixture.container).isEmpty)
            let actions = try await fixture.engine.consoleAudit().map(\.action)
            #expect(actions.contains("key.add") && actions.contains("key.revoke"))
        }
    }

    @Test func aUserIsSignedOutEverywhereAndMadeDiscoverable() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let user = fixture.writer.userRecordName
            let other = try await fixture.engine.startSession(container: RouterFixture.container, userRecordName: user, keepSignedIn: true).webAuthToken
            #expect(try await client.call(fixture.path("users/caller", webAuthToken: other), method: .get).status == 200)
            let page = try await browser.get("/console/users?c=\(RouterFixture.container)&user=\(user)")
            let csrf = try #require(page.csrf)
            #expect(page.body.contains("<strong id=\"live-sessions\">2</strong> live sign-ins"))
            #expect(page.body.contains("<strong id=\"discoverable\">no</strong>"))

            // A form without the session's token changes nothing.
            let forged = try await browser.post("/console/users/signout-everywhere", Self.scope + [("user", user)])
            #expect(forged.status == 403)
            #expect(try await client.call(fixture.path("users/caller", webAuthToken: other), method: .get).status == 200)

            let ended = try await browser.post("/console/users/signout-everywhere", Self.scope + [("csrf", csrf), ("user", user)])
            #expect(ended.status == 303)
            for token in [other, fixture.writerToken] {
                let refused = try await client.call(fixture.path("users/caller", webAuthToken: token), method: .get)
                #expect(refused.status == 421 && refused.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
            }
            #expect(try await browser.get("/console/users?c=\(RouterFixture.container)&user=\(user)").body.contains("<strong id=\"live-sessions\">0</strong>"))

            #expect(try await browser.post("/console/users/discoverable", Self.scope + [("csrf", csrf), ("user", user), ("discoverable", "1")]).status == 303)
            #expect(try await fixture.engine.userAccount(container: RouterFixture.container, userRecordName: user).discoverable)
            #expect(try await browser.get("/console/users?c=\(RouterFixture.container)&user=\(user)").body.contains("<strong id=\"discoverable\">yes</strong>"))
            let missing = try await browser.post("/console/users/discoverable", Self.scope + [("csrf", csrf), ("user", "_nobody"), ("discoverable", "1")])
            #expect(missing.status == 404 && missing.body.contains("has no user"))
            let actions = try await fixture.engine.consoleAudit().map(\.action)
            #expect(actions.contains("user.signout-everywhere") && actions.contains("user.discoverable"))
        }
    }

    @Test func aUsersPushTokenIsListedAndDeleted() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let courier = try await CourierTests.courier(fixture, client)
            let user = fixture.writer.userRecordName
            let page = try await browser.get("/console/users?c=\(RouterFixture.container)&user=\(user)")
            let tokens = try await fixture.engine.pushTokens(container: RouterFixture.container, userRecordName: user)
            try #require(tokens.count == 1)
            #expect(page.body.contains("<table id=\"push-tokens\"") && page.body.contains(String(tokens[0].digest.prefix(16))))
            let deleted = try await browser.post(
                "/console/users/push-token/delete",
                Self.scope + [("csrf", try #require(page.csrf)), ("user", user), ("token", tokens[0].digest)])
            #expect(deleted.status == 303)
            #expect(try await fixture.engine.pushTokens(container: RouterFixture.container, userRecordName: user).isEmpty)
            #expect(try await browser.get("/console/users?c=\(RouterFixture.container)&user=\(user)").body.contains("No push tokens."))
            // The device's courier no longer answers for it.
            #expect(try await client.call(courier, method: .get).status == 404)
        }
    }

    @Test func anIndexOptionIsRemovedInDevelopmentOnly() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            _ = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Song", "fields": ["plays": ["value": 3]],
                            ],
                        ]
                    ]
                ])
            let page = try await browser.get("/console/schema?c=\(RouterFixture.container)")
            let csrf = try #require(page.csrf)
            #expect(try await browser.post("/console/schema/index", Self.scope + [("csrf", csrf), ("type", "Song"), ("field", "plays"), ("index", "SORTABLE")]).status == 303)
            let shown = try await browser.get("/console/schema?c=\(RouterFixture.container)")
            #expect(shown.body.contains("action=\"/console/schema/index/remove\"") && shown.body.contains("Remove SORTABLE from plays"))
            let removed = try await browser.post("/console/schema/index/remove", Self.scope + [("csrf", csrf), ("type", "Song"), ("field", "plays"), ("index", "SORTABLE")])
            #expect(removed.status == 303)
            let schema = try await fixture.engine.currentSchema(container: RouterFixture.container, environment: .development)
            #expect(schema.recordTypes["Song"]?.fields["plays"]?.indexes.contains(.sortable) == false)
            let again = try await browser.post("/console/schema/index/remove", Self.scope + [("csrf", csrf), ("type", "Song"), ("field", "plays"), ("index", "SORTABLE")])
            #expect(again.status == 400 && again.body.contains("has no SORTABLE index to remove"))
            let production = try await browser.post(
                "/console/schema/index/remove",
                [
                    ("c", RouterFixture.container), ("env", "production"), ("csrf", csrf),
                    ("type", "Song"), ("field", "plays"), ("index", "QUERYABLE"),
                ])
            #expect(production.status == 400 && production.body.contains("removed in development only"))
            #expect(try await fixture.engine.consoleAudit().map(\.action).contains("schema.index.remove"))
        }
    }

    @Test func aFileIsUploadedIntoAnAssetFieldFromTheRecordPage() async throws {
        try await RouterFixture.run(configuration: ConsoleAuthTests.configuration, withAssets: true) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            _ = try await client.call(
                fixture.path("records/modify"),
                json: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordType": "Photo", "recordName": "p1", "fields": ["title": ["value": "dot"]],
                            ],
                        ]
                    ]
                ])
            let page = try await browser.get("/console/record?c=\(RouterFixture.container)&name=p1")
            #expect(page.body.contains("id=\"asset-form\"") && page.body.contains("enctype=\"multipart/form-data\""))
            let lookup: JSONValue = ["records": [["recordName": "p1"]]]
            let tag = try #require(try await client.call(fixture.path("records/lookup"), json: lookup).json["records"]?[0]?["recordChangeTag"]?.stringValue)
            // A 1×1 PNG.
            let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!)
            let form = Self.scope + [("db", "public"), ("zone", "_defaultZone"), ("type", "Photo"), ("name", "p1"), ("tag", tag), ("field", "image")]
            let forged = try await browser.postMultipart("/console/record/asset", form, file: ("file", "dot.png", png))
            #expect(forged.status == 403, "without the session's CSRF token nothing is stored")
            let uploaded = try await browser.postMultipart("/console/record/asset", form + [("csrf", try #require(page.csrf))], file: ("file", "dot.png", png))
            #expect(uploaded.status == 303)
            // The app sees the asset in the field, with the bytes uploaded and the title kept.
            let record = try #require(try await client.call(fixture.path("records/lookup"), json: lookup).json["records"]?[0])
            #expect(record["fields"]?["title"]?["value"] == "dot")
            let asset = try #require(record["fields"]?["image"]?["value"])
            #expect(asset["size"]?.int64Value == Int64(png.count))
            let downloadURL = try #require(asset["downloadURL"]?.stringValue)
            let path = String(downloadURL[try #require(downloadURL.range(of: "/assets/1/download/")).lowerBound...])
            let bytes = try await client.execute(uri: path, method: .get) { Array($0.body.readableBytesView) }
            #expect(bytes == png)
            #expect(try await browser.get("/console/record?c=\(RouterFixture.container)&name=p1").body.contains("<img class=\"preview\""))
            #expect(try await fixture.engine.consoleAudit().map(\.action).contains("record.asset.upload"))
            let empty = try await browser.postMultipart("/console/record/asset", form + [("csrf", try #require(page.csrf))], file: ("file", "none.png", []))
            #expect(empty.status == 400 && empty.body.contains("choose a file"))
        }
    }
}

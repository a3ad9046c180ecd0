import Foundation
import StratusEngine
import StratusModel
import StratusTestSupport
import Testing

/// `stratus user export` and `stratus user delete`, run as the binary against the storage and
/// blob folder a router-driven server is using: what the export holds, that the delete removes
/// every record, asset file, token and subscription of one user, and that another user's data
/// stays as it was.
@Suite struct UserExportErasureTests {
    @Test func exportThenDeleteOneUserLeavesTheOtherUntouched() async throws {
        try await AssetFixture.run { fixture in
            let container = AssetFixture.container
            let alice = try await fixture.engine.createUser(name: "Alice", container: container, options: NewUserOptions(email: "alice@example.com"))
            let bob = try await fixture.engine.createUser(name: "Bob", container: container)
            func acting(_ user: CreatedUser, _ database: String) -> AssetFixture {
                var copy = fixture
                copy.database = database
                copy.webAuthToken = user.webAuthToken
                return copy
            }
            // The same bytes in both users' records are one blob, which must outlive Alice.
            let sharedBytes = sampleBytes(3000, seed: 41), photoBytes = sampleBytes(5000, seed: 42), postBytes = sampleBytes(700, seed: 43)
            var sharedChecksum = ""
            for (user, name) in [(alice, "alice"), (bob, "bob")] {
                let mine = acting(user, "private")
                let asset = try await mine.upload(sharedBytes, record: "\(name)-doc")
                sharedChecksum = try #require(asset["fileChecksum"]?.stringValue)
                #expect(try await mine.save(record: "\(name)-doc", asset: asset).status == 200)
                #expect(try await mine.call("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Work"]]]]]).status == 200)
                let task = createBody(["\(name)-task"], type: "Task", zone: "Work")
                #expect(try await mine.call("records/modify", task).json.record(0)?["serverErrorCode"] == nil)
                let subscribed = try await mine.call(
                    "subscriptions/modify",
                    [
                        "operations": [
                            [
                                "operationType": "create", "subscription": ["subscriptionID": .string("\(name)-sub"), "subscriptionType": "database", "firesOn": ["create"]],
                            ]
                        ]
                    ])
                #expect(subscribed.status == 200)
            }
            let alicePrivate = acting(alice, "private"), alicePublic = acting(alice, "public"), bobPublic = acting(bob, "public")
            let photo = try await alicePrivate.upload(photoBytes, record: "alice-photo")
            let photoChecksum = try #require(photo["fileChecksum"]?.stringValue)
            #expect(try await alicePrivate.save(record: "alice-photo", asset: photo).status == 200)
            let post = try await alicePublic.upload(postBytes, record: "alice-post")
            let postChecksum = try #require(post["fileChecksum"]?.stringValue)
            #expect(try await alicePublic.save(record: "alice-post", asset: post).status == 200)
            #expect(try await bobPublic.call("records/modify", createBody(["bob-post"])).json.record(0)?["serverErrorCode"] == nil)
            let device = "/device/1/\(container)/development/tokens/create?ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(WebToken.escape(alice.webAuthToken))"
            #expect(try await fixture.client.call(device, json: ["apnsEnvironment": "development"]).status == 200)

            let flags = TestBackend.commandFlags(for: fixture.engine.storage, folder: fixture.folder)
            let exportFolder = fixture.folder.appendingPathComponent("export-alice")
            let exported = try await StratusBinary.run(["user", "export", "alice@example.com", "--to", exportFolder.path] + flags)
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stderr.contains("export: done: 6 records, 3 asset files"), "\(exported.stderr)")

            // The export: each file's records in records/lookup shape, the subscription, the asset bytes, the manifest.
            func lines(_ file: String) throws -> [JSONValue] {
                let text = try String(contentsOf: exportFolder.appendingPathComponent(file), encoding: .utf8)
                return try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
            }
            let privateRecords = try lines("records/private-development.jsonl")
            #expect(Set(privateRecords.compactMap { $0["recordName"]?.stringValue }) == ["alice-doc", "alice-task", "alice-photo"])
            let task = try #require(privateRecords.first { $0["recordName"] == "alice-task" })
            #expect(task["zoneID"]?["zoneName"] == "Work" && task["zoneID"]?["ownerRecordName"] == .string(alice.userRecordName))
            #expect(task["fields"]?["title"]?["value"] == "title of alice-task" && task["recordChangeTag"]?.stringValue != nil)
            let publicRecords = try lines("records/public-development.jsonl")
            #expect(Set(publicRecords.compactMap { $0["recordName"]?.stringValue }) == [alice.userRecordName, "alice-post"])
            #expect(try lines("records/public-production.jsonl").compactMap { $0["recordName"]?.stringValue } == [alice.userRecordName])
            #expect(try lines("subscriptions.jsonl").map { $0["subscription"]?["subscriptionID"] } == ["alice-sub"])
            #expect(try lines("share-participations.jsonl").isEmpty, "listed in the manifest, so there, though empty")
            #expect(Array(try Data(contentsOf: exportFolder.appendingPathComponent("assets/\(photoChecksum)"))) == photoBytes)
            #expect(Array(try Data(contentsOf: exportFolder.appendingPathComponent("assets/\(sharedChecksum)"))) == sharedBytes)
            let manifest = try JSONValue.parse(try String(contentsOf: exportFolder.appendingPathComponent("manifest.json"), encoding: .utf8))
            #expect(manifest["userRecordName"] == .string(alice.userRecordName) && manifest["email"] == "alice@example.com")
            #expect(Set(manifest["assets"]?.arrayValue?.compactMap { $0["fileChecksum"]?.stringValue } ?? []) == [sharedChecksum, photoChecksum, postChecksum])

            // Without --yes (and nobody to type it) nothing is removed.
            let unconfirmed = try await StratusBinary.run(["user", "delete", alice.userRecordName] + flags)
            #expect(unconfirmed.status != 0 && unconfirmed.stderr.contains("nothing was removed"), "\(unconfirmed.stderr)")
            #expect(try await alicePrivate.lookup("alice-task")["recordName"] == "alice-task")

            let deleted = try await StratusBinary.run(["user", "delete", alice.userRecordName, "--yes"] + flags)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            for expected in [
                "account: 1", "private records: 3", "public records: 3", "asset files: 2", "web auth tokens: 1",
                "push tokens: 1", "subscriptions: 1",
            ] {
                #expect(deleted.stdout.contains("  \(expected)\n"), "\(expected) in \(deleted.stdout)")
            }

            // Alice: her token is refused once this server's credential cache has let it go, her
            // records and asset files are gone.
            try await Task.sleep(for: .seconds(3))
            let refused = try await alicePrivate.call("zones/list", [:])
            #expect(refused.status == 421 && refused.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED", "\(refused.json)")
            #expect(try await bobPublic.lookup("alice-post")["serverErrorCode"] == "NOT_FOUND")
            #expect(try await bobPublic.lookup(alice.userRecordName)["serverErrorCode"] == "NOT_FOUND")
            let aliceStores = try await fixture.engine.storage.read { reader in
                try await reader.privateStores(container: container, userRecordName: alice.userRecordName)
            }
            #expect(aliceStores.isEmpty)
            #expect(try await fixture.assets.blobs.contains(checksum: photoChecksum) == false)
            #expect(try await fixture.assets.blobs.contains(checksum: postChecksum) == false)

            // Bob: everything as it was, the shared blob included.
            let bobPrivate = acting(bob, "private")
            let bobDoc = try await bobPrivate.lookup("bob-doc")
            let url = try #require(bobDoc["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)
            #expect(try await bobPrivate.download(url).body == sharedBytes)
            #expect(
                try await bobPrivate.call("records/lookup", ["zoneID": ["zoneName": "Work"], "records": [["recordName": "bob-task"]]])
                    .json.record(0)?["recordName"] == "bob-task")
            #expect(try await bobPublic.lookup("bob-post")["recordName"] == "bob-post")
            #expect(try await bobPrivate.call("subscriptions/list", [:]).json["subscriptions"]?.arrayValue?.count == 1)

            // Erased means unknown: a second delete names the problem.
            let again = try await StratusBinary.run(["user", "delete", "alice@example.com", "--yes"] + flags)
            #expect(again.status != 0 && again.stderr.contains("no user with the record name or email address 'alice@example.com'"), "\(again.stderr)")
        }
    }
}

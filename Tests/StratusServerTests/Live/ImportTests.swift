import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import StratusTestSupport
import Testing

/// `stratus import` from a real second server over loopback, signed with a server-to-server key,
/// into a fresh target (SQLite, or PostgreSQL under scripts/with-postgres); both sides compared
/// through CKWS.
@Suite struct ImportTests {
    static let types = ["Album", "Note", "Photo"]

    /// The records the source holds: an album, photos whose parent it is, with every field type,
    /// assets (two photos share one file) and references of each action, and enough notes that
    /// records/query answers more than one page.
    static func populate(_ source: inout ImportSource, notes: Int = 260) async throws {
        try await source.create([
            ["recordName": "album-1", "recordType": "Album", "fields": ["title": ["value": "Holidays", "type": "STRING"]]]
        ])
        let shared = Data((0..<5000).map { UInt8($0 % 251) })
        var photos: [JSONValue] = []
        for index in 1...3 {
            let name = "photo-\(index)"
            let bytes = index == 3 ? Data("a different picture".utf8) : shared
            let asset = try await source.upload(bytes, record: name, type: "Photo", field: "image")
            photos.append([
                "recordName": .string(name), "recordType": "Photo", "parent": ["recordName": "album-1"],
                "fields": [
                    "image": ["value": asset, "type": "ASSET"],
                    "caption": ["value": .string("Photo \(index) — café"), "type": "STRING"],
                    "rating": ["value": .int(Int64(index)), "type": "INT64"],
                    "exposure": ["value": 0.125, "type": "DOUBLE"],
                    "takenAt": ["value": .int(1_600_000_000_000 + Int64(index)), "type": "TIMESTAMP"],
                    "thumbnail": ["value": .string(Data([0, 1, 2, 255]).base64EncodedString()), "type": "BYTES"],
                    "place": ["value": ["latitude": 48.85, "longitude": 2.35, "horizontalAccuracy": 5, "altitude": 35], "type": "LOCATION"],
                    "album": ["value": ["recordName": "album-1", "action": "DELETE_SELF"], "type": "REFERENCE"],
                    "cover": ["value": ["recordName": "album-1", "action": "VALIDATE"], "type": "REFERENCE"],
                    "related": ["value": ["recordName": "note-1", "action": "NONE"], "type": "REFERENCE"],
                    "tags": ["value": ["beach", "sun"], "type": "STRING_LIST"],
                    "scores": ["value": [1, 2, 3], "type": "INT64_LIST"],
                    "dates": ["value": [1_600_000_000_000, 1_700_000_000_000], "type": "TIMESTAMP_LIST"],
                    "people": ["value": [["recordName": "note-2", "action": "NONE"]], "type": "REFERENCE_LIST"],
                    "stops": ["value": [["latitude": 1.5, "longitude": 2.5]], "type": "LOCATION_LIST"],
                ],
            ])
        }
        try await source.create(photos)
        var made = 0
        while made < notes {
            let batch = (made..<min(made + 100, notes)).map { index -> JSONValue in
                ["recordName": .string("note-\(index)"), "recordType": "Note", "fields": ["body": ["value": .string("note \(index)"), "type": "STRING"]]]
            }
            try await source.create(batch)
            made += batch.count
        }
    }

    @Test func importCopiesThePublicDatabaseFaithfullyAndARerunChangesNothing() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        var source = try await ImportSource(folder: folder)
        defer { source.server.terminate() }
        try await Self.populate(&source)
        let schema = folder.root.appendingPathComponent("schema.ckdb")
        try await source.exportSchema(to: schema)

        // The target's first start makes the container; the import runs while it is stopped.
        let targetData = folder.root.appendingPathComponent("target")
        let firstStart = try await RunningServer(data: targetData, log: folder.log)
        let targetCredentials = try DefaultContainerCredentials(firstStart)
        #expect(firstStart.terminate() == 0)

        let imported = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("total: 264 read, 264 written, 0 unchanged"), "\(imported.stdout)")
        #expect(imported.stdout.contains("2 asset files"), "the two photos sharing a file download it once: \(imported.stdout)")
        #expect(imported.stderr.contains("records/s"), "a progress line is shown: \(imported.stderr)")

        let target = try await RunningServer(data: targetData, log: folder.log)
        defer { target.terminate() }
        let targetClient = HTTPClient(baseURL: target.baseURL)
        let expected = try await PublicRecords.all(Self.types, client: source.client, credentials: source.credentials)
        let copied = try await PublicRecords.all(Self.types, client: targetClient, credentials: targetCredentials)
        #expect(expected.count == 264)
        #expect(Set(copied.keys) == Set(expected.keys))
        for (name, record) in expected {
            #expect(PublicRecords.comparable(copied[name] ?? .null) == PublicRecords.comparable(record), "record \(name) differs")
        }
        let photo = try #require(copied["photo-1"])
        #expect(photo["parent"]?["recordName"] == "album-1")
        #expect(photo["created"]?["timestamp"] == expected["photo-1"]?["created"]?["timestamp"], "created is the source's")

        // The asset bytes come back from the target.
        for (name, bytes) in source.assetBytes {
            let url = try #require(copied[name]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(name)")
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: url.replacingOccurrences(of: "${f}", with: "file"))))
            #expect(data == bytes, "the asset of \(name)")
        }

        // Running it again writes nothing: every record is found unchanged, change tags stay.
        let again = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("total: 264 read, 0 written, 264 unchanged"), "\(again.stdout)")
        let after = try await PublicRecords.all(Self.types, client: targetClient, credentials: targetCredentials)
        for (name, record) in copied {
            #expect(after[name]?["recordChangeTag"] == record["recordChangeTag"], "record \(name) was rewritten")
        }

        // A record changed at the source is updated by the next run, and only that one.
        let changed = try await source.client.send(
            source.credentials.path("records/modify"),
            json: [
                "operations": [
                    [
                        "operationType": "forceUpdate",
                        "record": ["recordName": "note-7", "recordType": "Note", "fields": ["body": ["value": "edited", "type": "STRING"]]],
                    ]
                ]
            ])
        #expect(changed.status == 200, "\(changed.json)")
        let third = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData))
        #expect(third.stdout.contains("total: 264 read, 1 written, 263 unchanged"), "\(third.stdout)")
        let edited = try await PublicRecords.all(["Note"], client: targetClient, credentials: targetCredentials)
        #expect(edited["note-7"]?["fields"]?["body"]?["value"] == "edited")
    }

    @Test func badCredentialsAndAnUnknownContainerStopBeforeAnythingIsWritten() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        var source = try await ImportSource(folder: folder)
        defer { source.server.terminate() }
        try await Self.populate(&source, notes: 5)
        let schema = folder.root.appendingPathComponent("schema.ckdb")
        try await source.exportSchema(to: schema)
        let targetData = folder.root.appendingPathComponent("target")
        let firstStart = try await RunningServer(data: targetData, log: folder.log)
        #expect(firstStart.terminate() == 0)

        var arguments = source.importArguments(schema: schema, target: targetData)
        arguments[arguments.firstIndex(of: "--key-id")! + 1] = String(repeating: "0", count: 64)
        let wrongKey = try await StratusBinary.run(arguments)
        #expect(wrongKey.status != 0)
        #expect(wrongKey.stderr.contains("refused the server-to-server key") && wrongKey.stderr.contains("--key-id"), "\(wrongKey.stderr)")
        #expect(wrongKey.stderr.split(separator: "\n").count == 1, "one line: \(wrongKey.stderr)")

        var unknown = source.importArguments(schema: schema, target: targetData)
        unknown[unknown.firstIndex(of: "--source-container")! + 1] = "iCloud.example.nothing"
        let noContainer = try await StratusBinary.run(unknown)
        #expect(noContainer.status != 0)
        #expect(noContainer.stderr.hasPrefix("error: the source") && noContainer.stderr.contains("iCloud.example.nothing"), "\(noContainer.stderr)")

        let exported = try await StratusBinary.run(["schema", "export", "--container", ImportSource.container, "--data", targetData.path])
        #expect(!exported.stdout.contains("Photo"), "no schema was imported: \(exported.stdout)")
        #expect(!FileManager.default.fileExists(atPath: targetData.appendingPathComponent("import-checkpoints").path))

        let dryRun = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData, ["--dry-run"]))
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("dry run: nothing was written") && dryRun.stdout.contains("total: 9 read"), "\(dryRun.stdout)")
        let jsonLines = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData, ["--dry-run", "--log-format", "json"]))
        #expect(jsonLines.status == 0, "\(jsonLines.stderr)")
        let events = try jsonLines.stdout.split(separator: "\n").map { try JSONValue.parse(Data($0.utf8)) }
        #expect(events.contains { $0["event"] == "verified" && $0["recordType"] == "Photo" && $0["readAtSource"] == 3 }, "\(jsonLines.stdout)")
        #expect(events.last?["event"] == "finished" && events.last?["dryRun"] == true && events.last?["read"] == 9, "\(jsonLines.stdout)")
        let afterDryRun = try await StratusBinary.run(["schema", "export", "--container", ImportSource.container, "--data", targetData.path])
        #expect(!afterDryRun.stdout.contains("Photo"), "a dry run writes nothing: \(afterDryRun.stdout)")
    }

    /// A source that throttles (1 request a second, bursts of 2, for the import's key): the
    /// import waits as told and copies every record.
    @Test func aThrottlingSourceIsWaitedForAndNothingIsLost() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        var source = try await ImportSource(folder: folder, serveFlags: ["--rate-limit", "1", "--rate-burst", "2"])
        defer { source.server.terminate() }
        try await Self.populate(&source, notes: 650)
        let schema = folder.root.appendingPathComponent("schema.ckdb")
        try await source.exportSchema(to: schema)
        let targetData = folder.root.appendingPathComponent("target")
        let firstStart = try await RunningServer(data: targetData, log: folder.log)
        let targetCredentials = try DefaultContainerCredentials(firstStart)
        #expect(firstStart.terminate() == 0)

        // A dry run first spends the key's budget (it only reads, faster than the source
        // refills), so the import that follows starts throttled on any machine.
        let dryRun = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData, ["--dry-run"]))
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let imported = try await StratusBinary.run(source.importArguments(schema: schema, target: targetData))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect((dryRun.stderr + imported.stderr).contains("THROTTLED; retrying"), "the source throttled the import: \(imported.stderr)")
        #expect(imported.stdout.contains("total: 654 read, 654 written"), "\(imported.stdout)")
        let target = try await RunningServer(data: targetData, log: folder.log)
        defer { target.terminate() }
        let copied = try await PublicRecords.all(Self.types, client: HTTPClient(baseURL: target.baseURL), credentials: targetCredentials)
        let notes = (0..<650).map { "note-\($0)" }
        #expect(Set(copied.keys) == Set(["album-1", "photo-1", "photo-2", "photo-3"] + notes))
    }

    /// A user's private database, read with their web auth token, lands in the target account
    /// with the same email: custom zones, parents, and `created` naming the target user.
    @Test func aUsersPrivateDatabaseMovesToTheirTargetAccount() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        var source = try await ImportSource(folder: folder)
        defer { source.server.terminate() }
        try await Self.populate(&source, notes: 3)
        let ann = try await Self.createUser(data: source.data)
        let annPath = { (operation: String) in Self.privatePath(operation, apiToken: source.credentials.token, user: ann.token) }
        let zone = try await source.client.send(annPath("zones/modify"), json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Trips"]]]]])
        #expect(zone.status == 200, "\(zone.json)")
        let trips = try await source.client.send(
            annPath("records/modify"),
            json: [
                "zoneID": ["zoneName": "Trips"],
                "operations": [
                    ["operationType": "create", "record": ["recordName": "trip-1", "recordType": "Trip", "fields": ["title": ["value": "Alps", "type": "STRING"]]]],
                    [
                        "operationType": "create",
                        "record": [
                            "recordName": "stop-1", "recordType": "Stop", "parent": ["recordName": "trip-1"],
                            "fields": ["trip": ["value": ["recordName": "trip-1", "action": "DELETE_SELF"], "type": "REFERENCE"], "day": ["value": 2, "type": "INT64"]],
                        ],
                    ],
                ],
            ])
        #expect(trips.status == 200, "\(trips.json)")
        let inbox = try await source.client.send(
            annPath("records/modify"),
            json: ["operations": [["operationType": "create", "record": ["recordName": "memo-1", "recordType": "Memo", "fields": ["text": ["value": "hi", "type": "STRING"]]]]]])
        #expect(inbox.status == 200, "\(inbox.json)")
        // Exported after the private records, so it declares their types too.
        let schema = folder.root.appendingPathComponent("schema.ckdb")
        try await source.exportSchema(to: schema)

        let targetData = folder.root.appendingPathComponent("target")
        let firstStart = try await RunningServer(data: targetData, log: folder.log)
        let targetCredentials = try DefaultContainerCredentials(firstStart)
        #expect(firstStart.terminate() == 0)
        let annThere = try await Self.createUser(data: targetData)

        let imported = try await StratusBinary.run(
            source.importArguments(schema: schema, target: targetData, ["--api-token", source.credentials.token, "--web-auth-token", ann.token]))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("private \(ann.name)  Trips  *  2  2  0  0"), "\(imported.stdout)")
        #expect(imported.stdout.contains("private \(ann.name)  _defaultZone  Memo  1  1  0  0"), "\(imported.stdout)")

        let target = try await RunningServer(data: targetData, log: folder.log)
        defer { target.terminate() }
        let targetClient = HTTPClient(baseURL: target.baseURL)
        // The custom zone through its change feed, the default zone (which has none) by query.
        let reads: [(String, JSONValue, (JSONValue) -> [JSONValue]?)] = [
            ("changes/zone", ["zones": [["zoneID": ["zoneName": "Trips"]]]], { $0["zones"]?[0]?["records"]?.arrayValue }),
            ("records/query", ["query": ["recordType": "Memo"]], { $0["records"]?.arrayValue }),
        ]
        for (operation, body, records) in reads {
            let before = try await source.client.send(annPath(operation), json: body)
            let after = try await targetClient.send(Self.privatePath(operation, apiToken: targetCredentials.token, user: annThere.token), json: body)
            let expected = records(before.json) ?? []
            let copied = records(after.json) ?? []
            #expect(!expected.isEmpty && copied.count == expected.count, "\(operation): \(after.json)")
            for record in expected {
                let name = record["recordName"]?.stringValue
                let match = copied.first { $0["recordName"]?.stringValue == name } ?? .null
                #expect(match["created"]?["userRecordName"]?.stringValue == annThere.name, "created names the target account")
                #expect(match["created"]?["timestamp"] == record["created"]?["timestamp"], "created is the source's")
                #expect(match["fields"] == record["fields"] && match["parent"]?["recordName"] == record["parent"]?["recordName"], "record \(name ?? "")")
            }
        }

        // An expired or wrong web auth token stops the import with one line, before writing.
        let wrong = try await StratusBinary.run(
            source.importArguments(schema: schema, target: targetData, ["--api-token", source.credentials.token, "--web-auth-token", "stratus__1__nottoken"]))
        #expect(wrong.status != 0 && wrong.stderr.contains("refused a web auth token"), "\(wrong.stderr)")
    }

    static func createUser(data: URL) async throws -> (name: String, token: String) {
        let created = try await StratusBinary.run([
            "user", "create", "Ann", "--container", ImportSource.container, "--email", "ann@example.com", "--data", data.path,
        ])
        let json = try JSONValue.parse(Data(created.stdout.utf8))
        return (try #require(json["userRecordName"]?.stringValue, "\(created.stderr)"), try #require(json["webAuthToken"]?.stringValue))
    }

    static func privatePath(_ operation: String, apiToken: String, user: String) -> String {
        "/database/1/\(ImportSource.container)/development/private/\(operation)?ckAPIToken=\(apiToken)&ckWebAuthToken=\(WebToken.escape(user))"
    }
}

import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// The real `stratus` binary over real HTTP.
@Suite(.serialized) struct LiveServerTests {
    static let container = "iCloud.dev.stratus.default"

    func path(_ operation: String, token: String, database: String = "public", webAuthToken: String? = nil) -> String {
        var path = "/database/1/\(Self.container)/development/\(database)/\(operation)?ckAPIToken=\(token)"
        if let webAuthToken { path += "&ckWebAuthToken=\(WebToken.escape(webAuthToken))" }
        return path
    }

    @Test func createQueryConflictDeleteRoundTrip() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        #expect(server.startupLines.contains("created container \(Self.container)"))
        #expect(server.startupLines.filter { $0.hasPrefix("listening on ") }.count == 1)
        #expect(server.baseURL.hasPrefix("http://127.0.0.1:"))
        #expect(!server.baseURL.hasSuffix(":0"))
        let tokenLine = try #require(server.startupLines.first { $0.hasPrefix("API token: ") })
        let token = String(tokenLine.dropFirst("API token: ".count))
        #expect(token.count == 64 && token.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(server.startupLines.contains { $0.hasPrefix("try: curl ") && $0.contains(token) && $0.contains("ckWebAuthToken=") })
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        let user = String(userLine.dropFirst("web auth token (user developer): ".count))

        let client = HTTPClient(baseURL: server.baseURL)
        let created = try await client.send(path("records/modify", token: token, webAuthToken: user), json: createBody(["live-1"]))
        #expect(created.status == 200)
        let firstTag = try #require(created.json.record(0)?["recordChangeTag"]?.stringValue)

        let query = try await client.send(path("records/query", token: token, webAuthToken: user), json: ["query": ["recordType": "Note"]])
        #expect(query.status == 200)
        #expect(query.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } == ["live-1"])

        func update(tag: String) -> JSONValue {
            [
                "operations": [
                    [
                        "operationType": "update",
                        "record": [
                            "recordName": "live-1", "recordType": "Note", "recordChangeTag": .string(tag),
                            "fields": ["title": ["value": "changed"]],
                        ],
                    ]
                ]
            ]
        }
        let updated = try await client.send(path("records/modify", token: token, webAuthToken: user), json: update(tag: firstTag))
        #expect(updated.status == 200)
        let secondTag = try #require(updated.json.record(0)?["recordChangeTag"]?.stringValue)
        #expect(secondTag != firstTag)

        // The stale tag: a per-record CONFLICT element (HTTP 200 for a non-atomic batch, as in
        // CloudKit), carrying the server's record so the client can merge.
        let stale = try await client.send(path("records/modify", token: token, webAuthToken: user), json: update(tag: firstTag))
        #expect(stale.status == 200)
        #expect(stale.json.record(0)?["serverErrorCode"] == "CONFLICT")
        #expect(stale.json.record(0)?["serverRecord"]?["recordChangeTag"]?.stringValue == secondTag)

        let delete: JSONValue = [
            "operations": [
                [
                    "operationType": "delete",
                    "record": ["recordName": "live-1", "recordChangeTag": .string(secondTag)],
                ]
            ]
        ]
        let deleted = try await client.send(path("records/modify", token: token, webAuthToken: user), json: delete)
        #expect(deleted.status == 200)
        #expect(deleted.json.record(0)?["deleted"] == true)
        let lookup = try await client.send(path("records/lookup", token: token, webAuthToken: user), json: ["records": [["recordName": "live-1"]]])
        #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")

        #expect(server.terminate() == 0)
    }

    @Test func commandsWorkWhileTheServerRunsAndDataSurvivesARestart() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let dataArgs = ["--data", folder.data.path]

        let tokenRun = try await StratusBinary.run(["token", "create", "--container", Self.container] + dataArgs)
        #expect(tokenRun.status == 0)
        let token = tokenRun.stdout.trimmingCharacters(in: .newlines)
        #expect(token.count == 64 && token.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(tokenRun.stdout == token + "\n")

        let userRun = try await StratusBinary.run(["user", "create", "ann", "--container", Self.container] + dataArgs)
        #expect(userRun.status == 0)
        let user = try JSONValue.parse(userRun.stdout)
        let webAuthToken = try #require(user["webAuthToken"]?.stringValue)
        let userRecordName = try #require(user["userRecordName"]?.stringValue)
        #expect(userRecordName.count == 33 && userRecordName.hasPrefix("_"))

        let containerRun = try await StratusBinary.run(["container", "create", "iCloud.com.example.Other"] + dataArgs)
        #expect(containerRun.status == 0)
        #expect(containerRun.stdout.trimmingCharacters(in: .newlines).count == 64)

        let client = HTTPClient(baseURL: server.baseURL)
        let privateCreate = try await client.send(
            path("records/modify", token: token, database: "private", webAuthToken: webAuthToken),
            json: createBody(["kept"]))
        #expect(privateCreate.status == 200)
        #expect(privateCreate.json.record(0)?["created"]?["userRecordName"]?.stringValue == userRecordName)

        let unknown = try await StratusBinary.run(["token", "create", "--container", "iCloud.no.such"] + dataArgs)
        #expect(unknown.status != 0)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("stratus container create iCloud.no.such"))

        let duplicate = try await StratusBinary.run(["container", "create", "iCloud.com.example.Other"] + dataArgs)
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("already exists"))

        // A continuation marker handed out before a restart still works after it: the marker
        // secret lives in the data folder, readable by its owner only (with PostgreSQL, in the
        // database, shared by every instance).
        let publicCreate = try await client.send(
            path("records/modify", token: token, webAuthToken: webAuthToken),
            json: createBody(["p1", "p2", "p3"], type: "Page"))
        #expect(publicCreate.status == 200)
        let pageQuery: JSONValue = [
            "resultsLimit": 1,
            "query": [
                "recordType": "Page",
                "sortBy": [["systemFieldName": "recordName", "ascending": true]],
            ],
        ]
        let firstPage = try await client.send(path("records/query", token: token), json: pageQuery)
        #expect(firstPage.json.record(0)?["recordName"] == "p1")
        let marker = try #require(firstPage.json["continuationMarker"]?.stringValue)
        if !TestBackend.isPostgres {
            let secretAttributes = try FileManager.default.attributesOfItem(atPath: folder.data.appendingPathComponent("secret.key").path)
            #expect((secretAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        #expect(server.terminate() == 0)

        let restarted = try await RunningServer(data: folder.data, log: folder.log)
        var nextQuery = pageQuery
        if case .object(var members) = nextQuery { members["continuationMarker"] = .string(marker); nextQuery = .object(members) }
        let secondPage = try await HTTPClient(baseURL: restarted.baseURL).send(path("records/query", token: token), json: nextQuery)
        #expect(secondPage.status == 200)
        #expect(secondPage.json.record(0)?["recordName"] == "p2")
        #expect(!restarted.startupLines.contains { $0.hasPrefix("created container") })
        let again = HTTPClient(baseURL: restarted.baseURL)
        let lookup = try await again.send(
            path("records/lookup", token: token, database: "private", webAuthToken: webAuthToken),
            json: ["records": [["recordName": "kept"]]])
        #expect(lookup.status == 200)
        #expect(lookup.json.record(0)?["recordName"] == "kept")
        #expect(lookup.json.record(0)?["serverErrorCode"] == nil)
        #expect(restarted.terminate() == 0)
    }
}

/// Start-up failures say what to do, and do not lose the first-start welcome.
@Suite struct StartupFailureTests {
    @Test func aBusyPortSaysWhatToDoAndTheWelcomeWaitsForASuccessfulStart() async throws {
        let first = try LiveFolder()
        let second = try LiveFolder()
        defer { first.remove(); second.remove() }
        let server = try await RunningServer(data: first.data, log: first.log)
        let port = try #require(server.baseURL.split(separator: ":").last.flatMap { Int($0) })

        let busy = try await StratusBinary.run(["serve", "--port", String(port), "--data", second.data.path])
        #expect(busy.status != 0)
        #expect(busy.stderr.contains("port is in use"))
        #expect(!busy.stdout.contains("API token"))

        let retried = try await RunningServer(data: second.data, log: second.log)
        #expect(retried.startupLines.contains("created container iCloud.dev.stratus.default"))
        #expect(retried.startupLines.contains { $0.hasPrefix("API token: ") })
        #expect(retried.terminate() == 0)
        #expect(server.terminate() == 0)
    }

    @Test func plainStratusServesWithSettingsFromTheEnvironment() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(
            arguments: [], environment: ["STRATUS_PORT": "0", "STRATUS_HOST": "127.0.0.1", "STRATUS_DATA": folder.data.path],
            log: folder.log)
        #expect(server.baseURL.hasPrefix("http://127.0.0.1:"))
        #expect(server.startupLines.contains("created container iCloud.dev.stratus.default"))
        #expect(FileManager.default.fileExists(atPath: folder.data.appendingPathComponent("stratus.sqlite").path))
        #expect(server.terminate() == 0)
    }

    @Test func aFolderSetUpByHandDoesNotGetTheDefaultContainer() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let created = try await StratusBinary.run(["container", "create", "iCloud.com.example.Mine", "--data", folder.data.path])
        #expect(created.status == 0)
        let server = try await RunningServer(data: folder.data, log: folder.log)
        #expect(server.startupLines.count == 1)
        let token = created.stdout.trimmingCharacters(in: .newlines)
        let zones = try await HTTPClient(baseURL: server.baseURL)
            .send("/database/1/iCloud.com.example.Mine/development/public/zones/list?ckAPIToken=\(token)", method: "GET")
        #expect(zones.status == 200)
        #expect(server.terminate() == 0)
    }

    @Test func aBadPortFromTheEnvironmentIsExplained() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let result = try await StratusBinary.run(["serve", "--data", folder.data.path], environment: ["STRATUS_PORT": "eighty"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("STRATUS_PORT='eighty' is not a port number"))
    }

    @Test func aBadIdlePollSettingIsExplained() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let result = try await StratusBinary.run(["serve", "--data", folder.data.path, "--port", "0"], environment: ["STRATUS_IDLE_POLL_US": "-5"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("STRATUS_IDLE_POLL_US='-5' is not a whole number of 0 or more"))
        let tooLong = try await StratusBinary.run(["serve", "--data", folder.data.path, "--port", "0", "--idle-poll-us", "2000000"])
        #expect(tooLong.status != 0)
        #expect(tooLong.stderr.contains("--idle-poll-us must be 0 (off) to 1000000"))
        #expect(
            !FileManager.default.fileExists(atPath: folder.data.appendingPathComponent("stratus.sqlite").path),
            "a refused setting must stop the start before the data folder is touched")
    }
}

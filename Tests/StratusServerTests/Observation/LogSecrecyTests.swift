import Foundation
import StratusModel
import Testing

/// The real binary with `--log-format json`: one access line per request, carrying what an
/// operator needs (uuid, operation, database, status, latency, an anonymised caller), and no
/// line in the whole log holds a token, password, record value or query-string secret.
@Suite struct LogSecrecyTests {
    @Test func accessLinesCarryEveryRequestAndNoSecret() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(
            arguments: ["serve", "--port", "0", "--data", folder.data.path, "--log-format", "json"],
            log: folder.log)
        let apiToken = try #require(server.apiToken)
        let userLine = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        let operatorToken = String(userLine.dropFirst("web auth token (user developer): ".count))
        let client = HTTPClient(baseURL: server.baseURL)
        let container = "iCloud.dev.stratus.default"
        let password = "pw-\(UUID().uuidString)"
        let recordValue = "value-\(UUID().uuidString)"
        let wrongToken = "wrong-\(UUID().uuidString)"
        var secrets = [apiToken, operatorToken, WebToken.escape(operatorToken), password, recordValue, wrongToken]

        let signUp = try await client.send(
            "/signin",
            json: [
                "container": .string(container), "action": "signup",
                "email": "logs@example.com", "password": .string(password),
            ])
        #expect(signUp.status == 200)
        let signedIn = try #require(signUp.json["webAuthToken"]?.stringValue)
        secrets += [signedIn, WebToken.escape(signedIn)]
        let base = "/database/1/\(container)/development/public"
        var uuids: [String] = []
        let modify = try await client.send(
            "\(base)/records/modify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(WebToken.escape(operatorToken))",
            json: [
                "operations": [
                    [
                        "operationType": "create",
                        "record": [
                            "recordName": "secret-holder", "recordType": "Note", "fields": ["body": ["value": .string(recordValue)]],
                        ],
                    ]
                ]
            ])
        #expect(modify.status == 200)
        let lookup = try await client.send(
            "\(base)/records/lookup?ckAPIToken=\(apiToken)&ckWebAuthToken=\(WebToken.escape(signedIn))",
            json: ["records": [["recordName": "secret-holder"]]])
        #expect(lookup.status == 200)
        let refused = try await client.send("\(base)/records/query?ckAPIToken=\(wrongToken)", json: ["query": ["recordType": "Note"]])
        #expect(refused.status == 401)
        uuids.append(try #require(refused.json["uuid"]?.stringValue))
        _ = try await client.send("/health", method: "GET")
        #expect(server.terminate() == 0)

        let log = try String(contentsOf: folder.log, encoding: .utf8)
        let lines = log.split(separator: "\n").filter { !$0.isEmpty }
        let objects = try lines.map { line in try JSONValue.parse(String(line)) }
        #expect(objects.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["message"] != nil }, "every line is a JSON log object")
        let access = objects.filter { $0["access"] == "1" }
        #expect(access.count == 5, "sign-up, modify, lookup, the refused query and health: \(access.count) access lines")
        #expect(access.map { $0["operation"]?.stringValue } == ["sign-in", "modify", "lookup", "query", "other"])
        #expect(access.map { $0["status"]?.stringValue } == ["200", "200", "200", "401", "200"])
        #expect(access[3]["uuid"]?.stringValue == uuids[0], "the uuid the client saw")
        #expect(access[3]["error"] == "AUTHENTICATION_FAILED")
        #expect(access[1]["database"] == "public" && access[1]["environment"] == "development")
        #expect(access[1]["caller"]?.stringValue?.count == 16 && access[2]["caller"] != access[1]["caller"], "two users, two ids")
        #expect(access.allSatisfy { Double($0["latency_ms"]?.stringValue ?? "") != nil })
        for secret in secrets {
            #expect(!log.contains(secret), "the log holds a secret: \(secret.prefix(6))…")
        }
    }
}

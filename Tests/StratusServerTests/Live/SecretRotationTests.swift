import Crypto
import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// `stratus secret rotate` beside a running server (data folder files with SQLite, the database
/// with PostgreSQL): what was signed before keeps working, new tokens use the new secret, and a
/// token signed with a secret the server does not know is refused.
@Suite struct SecretRotationTests {
    static let container = "iCloud.dev.stratus.default"

    @Test(.timeLimit(.minutes(2)))
    func tokensSignedBeforeARotationKeepWorkingAndUnknownSecretsAreRefused() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let apiToken = try #require(server.startupLines.first { $0.hasPrefix("API token: ") }).dropFirst("API token: ".count)
        let user = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
            .dropFirst("web auth token (user developer): ".count)
        let client = HTTPClient(baseURL: server.baseURL)
        func send(_ operation: String, _ body: JSONValue) async throws -> (status: Int, json: JSONValue) {
            try await client.send(
                "/database/1/\(Self.container)/development/private/\(operation)?ckAPIToken=\(apiToken)&ckWebAuthToken=\(WebToken.escape(String(user)))",
                json: body)
        }
        let zoneID: JSONValue = ["zoneName": "Notes"]
        #expect(try await send("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zoneID]]]]).status == 200)
        func create(_ names: [String]) async throws {
            let operations: [JSONValue] = names.map { ["operationType": "create", "record": ["recordName": .string($0), "recordType": "Note", "fields": ["n": ["value": 1]]]] }
            #expect(try await send("records/modify", ["zoneID": zoneID, "operations": .array(operations)]).status == 200)
        }
        func page(after marker: String?) async throws -> (status: Int, json: JSONValue) {
            var body: [String: JSONValue] = [
                "zoneID": zoneID, "resultsLimit": 1,
                "query": ["recordType": "Note", "sortBy": [["systemFieldName": "recordName", "ascending": true]]],
            ]
            if let marker { body["continuationMarker"] = .string(marker) }
            return try await send("records/query", .object(body))
        }
        func changes(after token: String?) async throws -> (status: Int, json: JSONValue) {
            var zone: [String: JSONValue] = ["zoneID": zoneID]
            if let token { zone["syncToken"] = .string(token) }
            return try await send("changes/zone", ["zones": [.object(zone)]])
        }
        func changedNames(_ response: (status: Int, json: JSONValue)) -> [String]? {
            response.json["zones"]?[0]?["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue }
        }
        func syncToken(_ response: (status: Int, json: JSONValue)) throws -> String {
            try #require(response.json["zones"]?[0]?["syncToken"]?.stringValue, "\(response.json)")
        }
        /// Rotates with the command line, then waits until the server hands out tokens signed
        /// with the new secret: the token for an unchanged zone is the same payload, so it changes
        /// exactly when the secret does.
        func rotate(_ arguments: [String] = []) async throws -> String {
            let before = try syncToken(try await changes(after: nil))
            let rotation = try await StratusBinary.run(["secret", "rotate", "--data", folder.data.path] + arguments)
            #expect(rotation.status == 0, "\(rotation.stderr)")
            let signsAnew = try await eventually { try syncToken(try await changes(after: nil)) != before }
            if !signsAnew { Issue.record("the server still signs with the old secret 30 s after `secret rotate`") }
            return rotation.stdout
        }

        try await create(["a", "b", "c"])
        let oldMarker = try #require(try await page(after: nil).json["continuationMarker"]?.stringValue)
        let oldToken = try syncToken(try await changes(after: nil))

        let printed = try await rotate()
        #expect(printed.contains("verify until"), "\(printed)")

        // Signed before the rotation: still accepted.
        let secondPage = try await page(after: oldMarker)
        #expect(secondPage.status == 200, "\(secondPage.json)")
        #expect(secondPage.json["records"]?[0]?["recordName"] == "b")
        try await create(["d"])
        let resumed = try await changes(after: oldToken)
        #expect(resumed.status == 200, "\(resumed.json)")
        #expect(changedNames(resumed) == ["d"])
        // Signed after it: accepted too.
        let newMarker = try #require(secondPage.json["continuationMarker"]?.stringValue)
        #expect(try await page(after: newMarker).json["records"]?[0]?["recordName"] == "c")
        let newToken = try syncToken(resumed)
        try await create(["e"])
        #expect(changedNames(try await changes(after: newToken)) == ["e"])

        // The same payload signed with a secret the server never had: refused.
        let forgedToken = Self.resigned(newToken)
        let refusedToken = try await changes(after: forgedToken)
        #expect(refusedToken.json["zones"]?[0]?["serverErrorCode"] == "BAD_REQUEST", "\(refusedToken.json)")
        let refusedMarker = try await page(after: Self.resigned(newMarker))
        #expect(refusedMarker.status == 400, "\(refusedMarker.json)")
        #expect(refusedMarker.json["serverErrorCode"] == "BAD_REQUEST")

        // A rotation with no overlap (a leaked secret): only the newest secret verifies.
        let leaked = try await rotate(["--overlap-days", "0"])
        #expect(leaked.contains("refused from now on"), "\(leaked)")
        #expect(try await page(after: oldMarker).status == 400, "signed two secrets ago")
        #expect(try await page(after: newMarker).status == 400, "signed one secret ago")
        let freshMarker = try #require(try await page(after: nil).json["continuationMarker"]?.stringValue)
        #expect(try await page(after: freshMarker).json["records"]?[0]?["recordName"] == "b")
        #expect(server.terminate() == 0)
    }

    @Test func rotatingIsRefusedWhenTheSecretComesFromTheEnvironment() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let result = try await StratusBinary.run(
            ["secret", "rotate", "--data", folder.data.path],
            environment: ["STRATUS_SECRET": String(repeating: "ab", count: 32)])
        #expect(result.status != 0)
        #expect(result.stderr.contains("STRATUS_PREVIOUS_SECRET"), "\(result.stderr)")
        let short = try await StratusBinary.run(
            ["token", "list", "--container", Self.container, "--data", folder.data.path],
            environment: ["STRATUS_SECRET": "too short"])
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 32"), "\(short.stderr)")
    }

    /// `text` with its signature replaced by one made with a random secret.
    static func resigned(_ text: String) -> String {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let payload = Data(base64URL: parts[parts.count - 2])
        let signature = HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(size: .bits256))
        parts[parts.count - 1] = Data(signature).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return parts.joined(separator: ".")
    }
}

private extension Data {
    init(base64URL text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        self = Data(base64Encoded: standard) ?? Data()
    }
}

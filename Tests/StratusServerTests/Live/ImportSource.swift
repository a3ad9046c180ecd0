import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import StratusTestSupport
import Testing

/// A second `stratus serve` (its own data folder, its own database under PostgreSQL) holding the
/// records an import copies, written through CKWS, with a server-to-server key registered for it.
struct ImportSource {
    static let container = "iCloud.dev.stratus.default"
    let server: RunningServer
    let credentials: DefaultContainerCredentials
    let client: HTTPClient
    let data: URL
    let keyID: String
    let keyFile: URL
    /// The bytes of each asset saved, by the record that holds it.
    var assetBytes: [String: Data] = [:]

    /// `serveFlags`: extra `stratus serve` flags, such as a rate limit.
    init(folder: LiveFolder, serveFlags: [String] = []) async throws {
        data = folder.root.appendingPathComponent("source")
        server = try await RunningServer(arguments: ["serve", "--port", "0", "--data", data.path] + serveFlags, log: folder.log)
        credentials = try DefaultContainerCredentials(server)
        client = HTTPClient(baseURL: server.baseURL)
        let key = P256.Signing.PrivateKey()
        keyFile = folder.root.appendingPathComponent("source-key.pem")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let publicKey = folder.root.appendingPathComponent("source-key-public.pem")
        try key.publicKey.pemRepresentation.write(to: publicKey, atomically: true, encoding: .utf8)
        let added = try await StratusBinary.run(["key", "add", "--container", Self.container, "--public-key", publicKey.path, "--data", data.path])
        guard added.status == 0 else { throw RunningServer.StartFailure(description: "key add failed: \(added.stderr)") }
        keyID = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Saves `operations` (records/modify create operations) and fails the test on any error.
    func create(_ records: [JSONValue]) async throws {
        let body: JSONValue = ["operations": .array(records.map { ["operationType": "create", "record": $0] })]
        let answer = try await send("records/modify", body)
        #expect(answer.status == 200, "\(answer.json)")
        for saved in answer.json["records"]?.arrayValue ?? [] {
            #expect(saved["serverErrorCode"] == nil, "\(saved)")
        }
    }

    /// A public-database request as the developer; a throttled one (a source started with a
    /// low rate limit) is sent again after the wait it asks for, for up to a minute.
    func send(_ operation: String, _ body: JSONValue) async throws -> (status: Int, json: JSONValue) {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let answer = try await client.send(credentials.path(operation), json: body)
            guard answer.json["serverErrorCode"] == "THROTTLED", ContinuousClock.now < deadline else { return answer }
            try await Task.sleep(for: .milliseconds(Int64((answer.json["retryAfter"]?.doubleValue ?? 0.5) * 1000) + 50))
        }
    }

    /// Uploads `bytes` for `field` of `record` (of `type`) and answers the dictionary to save.
    mutating func upload(_ bytes: Data, record: String, type: String, field: String) async throws -> JSONValue {
        let tokens = try await send("assets/upload", ["tokens": [["recordName": .string(record), "recordType": .string(type), "fieldName": .string(field)]]])
        let url = try #require(tokens.json["tokens"]?[0]?["url"]?.stringValue.flatMap(URL.init(string:)), "\(tokens.json)")
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = bytes
        let (data, _) = try await URLSession.shared.data(for: request)
        assetBytes[record] = bytes
        return try #require(JSONValue.parse(data)["singleFile"])
    }

    /// The schema the source holds, as `stratus schema export` prints it, written to a file.
    func exportSchema(to file: URL) async throws {
        let export = try await StratusBinary.run(["schema", "export", "--container", Self.container, "--data", data.path])
        #expect(export.status == 0, "\(export.stderr)")
        try export.stdout.write(to: file, atomically: true, encoding: .utf8)
    }

    /// `stratus import` of this source into `target`, with `extra` flags.
    func importArguments(schema: URL, target: URL, _ extra: [String] = []) -> [String] {
        [
            "import", "--source-url", server.baseURL, "--source-container", Self.container, "--key-id", keyID, "--key-file", keyFile.path,
            "--schema", schema.path, "--data", target.path,
        ] + extra
    }
}

/// Every record of some record types as a server answers records/query, by record name.
enum PublicRecords {
    static func all(_ types: [String], client: HTTPClient, credentials: DefaultContainerCredentials) async throws -> [String: JSONValue] {
        var found: [String: JSONValue] = [:]
        for type in types {
            var marker: String?
            repeat {
                var body: [String: JSONValue] = ["query": ["recordType": .string(type)], "resultsLimit": 200]
                if let marker { body["continuationMarker"] = .string(marker) }
                let answer = try await client.send(credentials.path("records/query"), json: .object(body))
                #expect(answer.status == 200, "\(answer.json)")
                for record in answer.json["records"]?.arrayValue ?? [] {
                    if let name = record["recordName"]?.stringValue { found[name] = record }
                }
                marker = answer.json["continuationMarker"]?.stringValue
            } while marker != nil
        }
        return found
    }

    /// What must be equal on both sides: everything but the change tag, the zone owner and the
    /// asset URLs and receipts, which each server makes its own.
    static func comparable(_ record: JSONValue) -> JSONValue {
        var members = record.objectValue ?? [:]
        members["recordChangeTag"] = nil
        members["zoneID"] = nil
        if var fields = members["fields"]?.objectValue {
            for (name, field) in fields {
                fields[name] = stripAssetURLs(field)
            }
            members["fields"] = .object(fields)
        }
        return .object(members)
    }

    static func stripAssetURLs(_ json: JSONValue) -> JSONValue {
        switch json.resolved {
        case .object(var members):
            members["downloadURL"] = nil
            members["receipt"] = nil
            return .object(members.mapValues(stripAssetURLs))
        case .array(let elements): return .array(elements.map(stripAssetURLs))
        default: return json.resolved
        }
    }
}

import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer

/// A real SQLite file and a real blob folder in a temporary folder, an engine with the given
/// limits, and the application with asset routes; driven through the router test client.
struct AssetFixture: Sendable {
    static let container = "iCloud.test.assets"

    let folder: URL
    let engine: Engine
    let apiToken: String
    let assets: AssetConfiguration
    let client: any TestClientProtocol
    /// The database requests address; `private` needs `webAuthToken`.
    var database = "public"
    /// The signed-in user (the router fixture's writer, until `asNewUser`): public writes need one.
    var webAuthToken: String?

    var blobsFolder: URL { folder.appendingPathComponent("blobs") }

    /// - Parameter blobStore: where blobs go; `nil` for a folder in the fixture's temporary folder.
    static func run(
        limits: EngineLimits = EngineLimits(), blobStore: (any BlobStore)? = nil,
        _ body: @escaping @Sendable (AssetFixture) async throws -> Void
    ) async throws {
        try await RouterFixture.run(limits: limits, withAssets: true, blobStore: blobStore, container: container) { router, client in
            try await body(
                AssetFixture(
                    folder: router.folder, engine: router.engine, apiToken: router.apiToken,
                    assets: router.assets!, client: client, webAuthToken: router.writerToken))
        }
    }

    func path(_ operation: String) -> String {
        let user = webAuthToken.map { "&ckWebAuthToken=\(WebToken.escape($0))" } ?? ""
        return "/database/1/\(AssetFixture.container)/development/\(database)/\(operation)?ckAPIToken=\(apiToken)" + user
    }

    /// The same fixture acting as a new signed-in user on their private database.
    func asNewUser() async throws -> AssetFixture {
        let user = try await engine.createUser(name: "tester", container: AssetFixture.container)
        var copy = self
        copy.database = "private"
        copy.webAuthToken = user.webAuthToken
        return copy
    }

    /// POSTs a JSON body to a database operation.
    func call(_ operation: String, _ json: JSONValue) async throws -> (status: Int, json: JSONValue) {
        let (status, json, _) = try await client.call(path(operation), json: json)
        return (status, json)
    }

    /// The path of an absolute URL this server handed out.
    static func localPath(_ url: String) -> String {
        guard let range = url.range(of: "/assets/1/") else { return url }
        return String(url[range.lowerBound...])
    }

    /// An upload URL (as a path) for one field of one record.
    func uploadPath(record: String, field: String = "file", zone: String? = nil) async throws -> String {
        var body: [String: JSONValue] = ["tokens": [["recordName": .string(record), "recordType": "Doc", "fieldName": .string(field)]]]
        if let zone { body["zoneID"] = ["zoneName": .string(zone)] }
        let (status, json) = try await call("assets/upload", .object(body))
        guard status == 200, let url = json["tokens"]?[0]?["url"]?.stringValue else {
            throw FixtureFailure("assets/upload answered \(status): \(json)")
        }
        return AssetFixture.localPath(url)
    }

    /// POSTs raw bytes to an upload path; returns the status and the answer.
    func post(_ bytes: [UInt8], to uploadPath: String) async throws -> (status: Int, json: JSONValue) {
        try await client.execute(uri: uploadPath, method: .post, body: ByteBuffer(bytes: bytes)) { response in
            let body = Array(response.body.readableBytesView)
            return (Int(response.status.code), body.isEmpty ? .null : try JSONValue.parse(body))
        }
    }

    /// Uploads `bytes` for a field and returns the `singleFile` dictionary.
    func upload(_ bytes: [UInt8], record: String, field: String = "file") async throws -> JSONValue {
        let (status, json) = try await post(bytes, to: try await uploadPath(record: record, field: field))
        guard status == 200, let single = json["singleFile"] else { throw FixtureFailure("upload answered \(status): \(json)") }
        return single
    }

    /// Saves (forceReplace) a record whose `field` holds `asset`.
    func save(record: String, field: String = "file", asset: JSONValue) async throws -> (status: Int, json: JSONValue) {
        try await call(
            "records/modify",
            [
                "operations": [
                    [
                        "operationType": "forceReplace",
                        "record": [
                            "recordName": .string(record), "recordType": "Doc",
                            "fields": .object([field: ["value": asset, "type": "ASSET"]]),
                        ],
                    ]
                ]
            ])
    }

    func delete(record: String) async throws {
        let (status, json) = try await call(
            "records/modify",
            [
                "operations": [["operationType": "forceDelete", "record": ["recordName": .string(record)]]]
            ])
        guard status == 200, json.record(0)?["serverErrorCode"] == nil else { throw FixtureFailure("delete answered \(status): \(json)") }
    }

    /// The record as records/lookup returns it.
    func lookup(_ record: String, desiredKeys: [String]? = nil) async throws -> JSONValue {
        var body: [String: JSONValue] = ["records": [["recordName": .string(record)]]]
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        let (_, json) = try await call("records/lookup", .object(body))
        return json.record(0) ?? .null
    }

    /// GETs a download URL; returns status, body and headers.
    func download(_ url: String, headers: HTTPFields = [:]) async throws -> (status: Int, body: [UInt8], headers: HTTPFields) {
        let path = AssetFixture.localPath(url).replacingOccurrences(of: "${f}", with: "file.bin")
        return try await client.execute(uri: path, method: .get, headers: headers, body: nil) { response in
            (Int(response.status.code), Array(response.body.readableBytesView), response.headers)
        }
    }

    /// Blob files currently in the store (not counting spooled uploads).
    func storedBlobCount() -> Int {
        let root = blobsFolder.appendingPathComponent("sha256")
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var count = 0
        while let item = enumerator?.nextObject() as? String {
            if item.count > 60 { count += 1 }
        }
        return count
    }

    func collector(gracePeriod: Double) -> BlobCollector {
        var logger = Logger(label: "stratus-test")
        logger.logLevel = .warning
        return BlobCollector(engine: engine, assets: assets, gracePeriod: gracePeriod, logger: logger)
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Deterministic pseudo-random bytes (so a failure can be reproduced).
func sampleBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

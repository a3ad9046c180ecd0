import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StratusEngine
import StratusModel
import StratusServer
import StratusSQLite
import StratusTestSupport
import ServiceLifecycle
import StratusStore
import Testing

/// A real SQLite file in a temporary folder, an engine on it, one container with an API token,
/// and the Stratus application built from them.
struct RouterFixture: Sendable {
    static let container = "iCloud.test.router"

    let folder: URL
    let storage: any RecordStorage & Service
    let engine: Engine
    let apiToken: String
    /// A signed-in user (operator token) for requests that write to the public database, which
    /// CloudKit's default grants allow to signed-in users only.
    let writer: CreatedUser
    let app: StratusApplication
    /// Blob store and spool folder under `folder/blobs` when asked for (`withAssets`).
    let assets: AssetConfiguration?

    var writerToken: String { writer.webAuthToken }

    /// Runs `body` with a fresh fixture and a router test client, then removes the folder.
    static func run(
        configuration: ServerConfiguration = ServerConfiguration(), limits: EngineLimits = EngineLimits(),
        withAssets: Bool = false, blobStore: (any BlobStore)? = nil, container: String = RouterFixture.container,
        idlePoller: IdlePoller? = nil, webAuthTokenPolicy: WebAuthTokenPolicy = .session, hooks: RecordHooks = RecordHooks(),
        _ body: @escaping @Sendable (RouterFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "stratus-test")
        logger.logLevel = .warning
        let storage = try await TestBackend.open(folder: folder, logger: logger)
        do {
            let engine = Engine(
                storage: storage, secret: Array(repeating: 7, count: 32), limits: limits,
                webAuthTokenPolicy: webAuthTokenPolicy, hooks: hooks, logger: logger)
            let token = try await engine.createContainer(container)
            let writer = try await engine.createUser(name: "Wendy Writer", container: container)
            let blobs = folder.appendingPathComponent("blobs")
            let assets = withAssets ? AssetConfiguration(blobs: blobStore ?? FileBlobStore(root: blobs), spoolFolder: blobs.appendingPathComponent("incoming")) : nil
            let app = makeStratusApplication(engine: engine, configuration: configuration, assets: assets, idlePoller: idlePoller, logger: logger)
            let fixture = RouterFixture(folder: folder, storage: storage, engine: engine, apiToken: token, writer: writer, app: app, assets: assets)
            try await app.test(.router) { client in try await body(fixture, client) }
        } catch {
            try? await storage.close()
            throw error
        }
        try await storage.close()
    }

    /// `/database/1/{container}/{environment}/{database}/{operation}?ckAPIToken=…[&ckWebAuthToken=…]`.
    /// Public-database requests act as `writer` unless they name another user or ask to be `anonymous`.
    func path(
        _ operation: String, database: String = "public", environment: String = "development",
        container: String = RouterFixture.container, apiToken: String? = nil /* "" sends none */, webAuthToken: String? = nil,
        anonymous: Bool = false
    ) -> String {
        var query: [String] = []
        let token = apiToken ?? self.apiToken
        if !token.isEmpty { query.append("ckAPIToken=\(token)") }
        let user = webAuthToken ?? (database == "public" && !anonymous ? writerToken : nil)
        if let user { query.append("ckWebAuthToken=\(WebToken.escape(user))") }
        return "/database/1/\(container)/\(environment)/\(database)/\(operation)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}

/// Percent-encoding of a web auth token as a careful client does it.
enum WebToken {
    static func escape(_ token: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token
    }
}

extension TestClientProtocol {
    /// Sends `body` (a JSON text; `nil` for none) and returns the status and the parsed body.
    func call(_ uri: String, method: HTTPRequest.Method = .post, body: String? = nil) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
        try await execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) }) { response in
            let bytes = Array(response.body.readableBytesView)
            let json = bytes.isEmpty ? JSONValue.null : try JSONValue.parse(bytes)
            return (Int(response.status.code), json, response.headers)
        }
    }

    /// POSTs `body` (a JSON value).
    func call(_ uri: String, json: JSONValue) async throws -> (status: Int, json: JSONValue, headers: HTTPFields) {
        try await call(uri, body: json.serializedString)
    }
}

extension JSONValue {
    /// `self.records[index]`.
    func record(_ index: Int) -> JSONValue? { self["records"]?.arrayValue?[safe: index] }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// A records/modify body with one create per name.
func createBody(_ names: [String], type: String = "Note", zone: String? = nil, atomic: Bool? = nil) -> JSONValue {
    var body: [String: JSONValue] = [
        "operations": .array(
            names.map { name in
                [
                    "operationType": "create",
                    "record": [
                        "recordName": .string(name), "recordType": .string(type),
                        "fields": ["title": ["value": .string("title of \(name)")]],
                    ],
                ]
            })
    ]
    if let zone { body["zoneID"] = ["zoneName": .string(zone)] }
    if let atomic { body["atomic"] = .bool(atomic) }
    return .object(body)
}

/// A whole-request CKWS error: its status, code and reason, and the uuid and content type every
/// error answer carries.
func expectError(
    _ response: (status: Int, json: JSONValue, headers: HTTPFields), status: Int, code: String,
    reasonContains fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, sourceLocation: sourceLocation)
    #expect(response.json["serverErrorCode"]?.stringValue == code, sourceLocation: sourceLocation)
    let reason = response.json["reason"]?.stringValue ?? ""
    for fragment in fragments {
        #expect(reason.contains(fragment), "reason '\(reason)' should mention '\(fragment)'", sourceLocation: sourceLocation)
    }
    #expect(response.json["uuid"]?.stringValue == response.headers[HTTPField.Name("X-Apple-Request-UUID")!], sourceLocation: sourceLocation)
    #expect(response.headers[.contentType] == "application/json; charset=UTF-8", sourceLocation: sourceLocation)
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StratusEngine
import StratusModel
import StratusServer
import StratusSQLite
import Testing

/// A failure inside the server is a generic INTERNAL_ERROR: the client never sees SQL or a
/// driver message.
@Suite struct InternalErrorTests {
    @Test func aStorageFailureIsAGeneric500() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-internal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "stratus-test")
        logger.logLevel = .critical
        let storage = try await SQLiteStorage.open(path: folder.appendingPathComponent("stratus.sqlite").path, logger: logger)
        let engine = Engine(storage: storage, secret: Array(repeating: 1, count: 32), logger: logger)
        let token = try await engine.createContainer("iCloud.test.internal")
        try await storage.close()

        let app = makeStratusApplication(engine: engine, configuration: ServerConfiguration(), logger: logger)
        try await app.test(.router) { client in
            let response = try await client.call("/database/1/iCloud.test.internal/development/public/zones/list?ckAPIToken=\(token)", method: .get)
            #expect(response.status == 500)
            #expect(response.json["serverErrorCode"] == "INTERNAL_ERROR")
            let reason = response.json["reason"]?.stringValue ?? ""
            #expect(reason.hasPrefix("the server failed to process this request"))
            #expect(!reason.lowercased().contains("sql"))
            #expect(reason.contains(response.json["uuid"]?.stringValue ?? "missing uuid"))
        }
    }
}

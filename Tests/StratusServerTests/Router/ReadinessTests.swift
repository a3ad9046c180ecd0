import Foundation
import HummingbirdTesting
import StratusModel
import Testing

/// `GET /ready` names each check, and fails on the one that fails.
@Suite struct ReadinessTests {
    @Test func readyReportsTheDatabaseTheSchemaAndTheAssetStore() async throws {
        try await RouterFixture.run(withAssets: true) { fixture, client in
            let ready = try await client.call("/ready", method: .get)
            #expect(ready.status == 200)
            #expect(ready.json["checks"] == ["database": "ok", "migrations": "ok", "blobs": "ok"])

            // Something else where the asset folder belongs (a failed mount): not ready, and why.
            let blobs = fixture.folder.appendingPathComponent("blobs")
            try? FileManager.default.removeItem(at: blobs)
            try Data("not a folder".utf8).write(to: blobs)
            let broken = try await client.call("/ready", method: .get)
            #expect(broken.status == 503)
            #expect(broken.json["checks"] == ["database": "ok", "migrations": "ok", "blobs": "failing"])
            #expect(broken.json["reason"]?.stringValue?.contains("asset folder") == true, "\(broken.json)")

            try FileManager.default.removeItem(at: blobs)
            #expect(try await client.call("/ready", method: .get).status == 200, "a missing asset folder is made again")
        }
    }
}

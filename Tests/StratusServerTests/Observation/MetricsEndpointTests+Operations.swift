import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StratusEngine
import StratusModel
import StratusServer
import Testing

extension MetricsEndpointTests {
    /// Storage transactions and their waits, the queue depths, and asset bytes each way move
    /// with a scripted private-database session: a courier token and subscription, an upload,
    /// a save (which queues a notification for the token) and a download.
    @Test func storageQueuesAndAssetBytesMove() async throws {
        var configuration = ServerConfiguration()
        configuration.metrics = ServerMetrics()
        configuration.metricsToken = Self.token
        try await RouterFixture.run(configuration: configuration, withAssets: true, container: AssetFixture.container) { router, client in
            let shared = AssetFixture(
                folder: router.folder, engine: router.engine, apiToken: router.apiToken, assets: router.assets!,
                client: client, webAuthToken: router.writerToken)
            func scrape() async throws -> PrometheusText {
                try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"]) { response in
                    try PrometheusText.parse(String(buffer: response.body))
                }
            }
            let before = try await scrape()
            #expect(before.value("stratus_queue_depth", ["queue": "courier"]) == 0)
            #expect(before.value("stratus_queue_depth", ["queue": "push"]) == 0)
            #expect(before.value("stratus_asset_bytes_total", ["direction": "in"]) == 0)

            let fixture = try await shared.asNewUser()
            let device = "/device/1/\(AssetFixture.container)/development/tokens/%@?ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(WebToken.escape(fixture.webAuthToken!))"
            let created = try await client.call(device.replacingOccurrences(of: "%@", with: "create"), json: ["apnsEnvironment": "development"])
            let courierToken = try #require(created.json["apnsToken"]?.stringValue)
            #expect(
                try await client.call(
                    device.replacingOccurrences(of: "%@", with: "register"),
                    json: ["apnsEnvironment": "development", "apnsToken": .string(courierToken)]
                ).status == 200)
            #expect(
                try await fixture.call(
                    "subscriptions/modify",
                    [
                        "operations": [
                            [
                                "operationType": "create", "subscription": ["subscriptionID": "all", "subscriptionType": "database", "firesOn": ["create", "update"]],
                            ]
                        ]
                    ]
                ).status == 200)
            let bytes = sampleBytes(4096, seed: 77)
            #expect(try await fixture.save(record: "doc", asset: try await fixture.upload(bytes, record: "doc")).status == 200)
            let url = try #require(try await fixture.lookup("doc")["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue)
            #expect(try await fixture.download(url).body == bytes)

            // Queue depths are sampled at most every few seconds; wait out the first sample.
            try await Task.sleep(for: .seconds(6))
            let after = try await scrape()
            #expect(after.value("stratus_asset_bytes_total", ["direction": "in"]) == 4096)
            #expect(after.value("stratus_asset_bytes_total", ["direction": "out"]) == 4096)
            #expect(after.value("stratus_queue_depth", ["queue": "courier"]) == 1, "the save queued one notification for the token")
            #expect((after.value("stratus_queue_depth", ["queue": "change_log"]) ?? 0) > (before.value("stratus_queue_depth", ["queue": "change_log"]) ?? 0))
            for kind in ["read", "write"] {
                let runs = after.value("stratus_storage_transaction_duration_seconds_count", ["kind": kind]) ?? 0
                #expect(runs > (before.value("stratus_storage_transaction_duration_seconds_count", ["kind": kind]) ?? 0), "\(kind) transactions")
                #expect(after.value("stratus_storage_transaction_wait_seconds_count", ["kind": kind]) == runs, "one wait per \(kind) transaction")
            }
            #expect(after.value("stratus_queue_depth", ["queue": "push"]) == 0, "a courier token has no provider to push to")
            #expect(after.value("stratus_connections_refused_total", [:]) == 0)
        }
    }
}

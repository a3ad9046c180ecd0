import HTTPTypes
import StratusModel
import Testing

/// A failed atomic batch names the request by the same uuid in its body, in each record error
/// and in the `X-Apple-Request-UUID` header, so a client reporting any of them points at one request.
@Suite struct AtomicFailureUUIDTests {
    @Test func failedAtomicBatchCarriesTheRequestUUIDEverywhere() async throws {
        try await RouterFixture.run { fixture, client in
            let path = fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken)
            let zone = try await client.call(
                fixture.path("zones/modify", database: "private", webAuthToken: fixture.writerToken),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Batch"]]]]])
            #expect(zone.status == 200)
            #expect(try await client.call(path, json: createBody(["taken"], zone: "Batch")).status == 200)

            let failed = try await client.call(path, json: createBody(["fresh", "taken"], zone: "Batch", atomic: true))
            #expect(failed.status == 400)
            let header = try #require(failed.headers[HTTPField.Name("X-Apple-Request-UUID")!])
            #expect(failed.json["uuid"]?.stringValue == header)
            let records = failed.json["records"]?.arrayValue ?? []
            #expect(records.map { $0["serverErrorCode"]?.stringValue } == ["ATOMIC_ERROR", "EXISTS"])
            #expect(records.allSatisfy { $0["uuid"]?.stringValue == header })
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import StratusServer
import Testing

/// `GET /openapi.yaml`: the API description a client generator or a tester reads, served by the
/// server itself. scripts/api-check checks the server against it.
@Suite struct OpenAPITests {
    /// docs/openapi.yaml, as checked in.
    static func checkedInDocument() throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return Array(try Data(contentsOf: root.appendingPathComponent("docs/openapi.yaml")))
    }

    @Test func servesTheCheckedInDocumentWithoutCredentials() async throws {
        let expected = try OpenAPITests.checkedInDocument()
        try await RouterFixture.run { _, client in
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
                let body = Array(response.body.readableBytesView)
                #expect(body == expected)
                #expect(String(decoding: body.prefix(14), as: UTF8.self) == "openapi: 3.0.3")
            }
        }
    }

    /// A database operation added to the server without a description would go unchecked.
    @Test func describesEveryDatabaseOperation() throws {
        let document = String(decoding: try OpenAPITests.checkedInDocument(), as: UTF8.self)
        for operation in DatabaseOperation.allCases {
            #expect(
                document.contains("\n  /database/1/{container}/{environment}/{database}/\(operation.rawValue):\n"),
                "docs/openapi.yaml does not describe \(operation.rawValue)")
        }
    }
}

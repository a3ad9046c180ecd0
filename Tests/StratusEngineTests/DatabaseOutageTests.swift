import Foundation
import Logging
import StratusEngine
import StratusModel
import StratusPostgres
import StratusTestSupport
import Testing

/// A PostgreSQL server that restarts, fails over or ends connections: requests carry on, or are
/// told to retry (TRY_AGAIN_LATER with retryAfter), never an internal error, and the storage
/// reconnects by itself.
@Suite("database outages", .enabled(if: TestBackend.isPostgres))
struct DatabaseOutageTests {
    @Test("a request after the server ended every connection succeeds on a new one")
    func reconnectsAfterTerminatedConnections() async throws {
        let fixture = try await EngineFixture.make()
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("before", fields: ["v": 1])])
        for round in 0..<3 {
            try await TestBackend.terminateConnections(of: fixture.storage)
            let saved = try await fixture.modify(scope, [createOp("after\(round)", fields: ["v": 1])])
            #expect(saved.first?["serverErrorCode"] == nil, "round \(round): \(saved)")
            let read = try await fixture.query(scope, ["recordType": "Item"])
            #expect(fixture.names(read).count == round + 2)
        }
        await fixture.close()
    }

    @Test("a server that cannot be reached fails the start with one line that says what to check")
    func unreachableServer() async throws {
        let url = try PostgresURL("postgres://stratus@127.0.0.1:1/stratus?sslmode=disable")
        do {
            _ = try await PostgresStorage.open(url, logger: Logger(label: "test"))
            Issue.record("opened a server that does not exist")
        } catch let failure as PostgresStorage.StartFailure {
            #expect(failure.description.contains("cannot connect to PostgreSQL at postgres://stratus@127.0.0.1:1/stratus"))
            #expect(failure.description.contains("check that the server runs"))
        }
    }
}

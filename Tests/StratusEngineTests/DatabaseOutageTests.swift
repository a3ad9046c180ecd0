import Foundation
import Logging
import StratusEngine
import StratusModel
import StratusPostgres
import StratusTestSupport
import Testing

/// A PostgreSQL server that cannot be reached stops the start with a line that says what to check.
/// (Connections the server ends are retried on new ones, `PostgresDatabase.retrying`; a test that
/// ended them during a run of the suite hung in postgres-nio when one was idle inside a
/// transaction, so it is not part of the suite.)
@Suite("database outages", .postgresOnly)
struct DatabaseOutageTests {
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

import StratusEngine
import StratusStore

extension PostgresStorage: SchemaStatusReporting {
    public func schemaStatus() async throws -> SchemaStatus { try await records.schemaStatus() }
}

import StratusEngine
import StratusStore

extension SQLiteStorage: SchemaStatusReporting {
    public func schemaStatus() async throws -> SchemaStatus { try await records.schemaStatus() }
}

import StratusEngine

extension DroppingStorage: SchemaStatusReporting {
    func schemaStatus() async throws -> SchemaStatus { try await storage.schemaStatus() }
}

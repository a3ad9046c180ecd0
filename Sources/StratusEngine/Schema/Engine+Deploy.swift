import StratusModel

extension Engine {
    /// Copies the development schema to production, additively (docs/protocol.md §12.1).
    public func deploySchema(container: String) async throws {
        let development = try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.schema(container: container, environment: .development)
        }
        try await mergeSchema(development, into: .production, container: container)
        logger.notice("schema: deployed development schema of \(container) to production")
    }

    /// Applies a schema in the text language (`stratus schema import`), additively.
    public func importSchema(_ text: String, container: String, environment: DatabaseEnvironment) async throws -> SchemaLanguage.Parsed {
        let parsed = try SchemaLanguage.parse(text)
        try await mergeSchema(parsed.schema, into: environment, container: container)
        return parsed
    }

    /// The schema of an environment in the text language (`stratus schema export`).
    public func exportSchema(container: String, environment: DatabaseEnvironment) async throws -> String {
        let schema = try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.schema(container: container, environment: environment)
        }
        return SchemaLanguage.render(schema)
    }

    /// Adds types, fields and indexes of `source` to an environment's schema. Nothing is removed;
    /// a field whose type differs is refused and the whole merge is rolled back.
    func mergeSchema(_ source: Schema, into environment: DatabaseEnvironment, container: String) async throws {
        try await writeWithSchema(container: container, environment: environment) { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            try await self.saveSchemaChanges(Array(source.recordTypes.values), container: container, environment: environment, writer: writer)
        }
        await announce([.schemaChanged(container: container, environment: environment)])
    }
}

import StratusModel

extension Engine {
    static func schemaKey(_ container: String, _ environment: DatabaseEnvironment) -> String {
        "\(container)\u{1F}\(environment.rawValue)"
    }

    /// The schema of a container environment, from the cache or the store.
    ///
    /// Only write transactions change a schema, and they are serialized; a writer updates the
    /// cache before it commits and drops it if the commit fails (`invalidateSchema`).
    func schema(container: String, environment: DatabaseEnvironment, reader: any StorageReader) async throws -> Schema {
        let key = Engine.schemaKey(container, environment)
        if let cached = schemaCache.withLock({ $0[key] }) { return cached }
        let loaded = try await reader.schema(container: container, environment: environment)
        schemaCache.withLock { $0[key] = loaded }
        return loaded
    }

    func cacheSchema(_ schema: Schema, container: String, environment: DatabaseEnvironment) {
        schemaCache.withLock { $0[Engine.schemaKey(container, environment)] = schema }
    }

    public func invalidateSchema(container: String, environment: DatabaseEnvironment) {
        _ = schemaCache.withLock { $0.removeValue(forKey: Engine.schemaKey(container, environment)) }
    }

    /// Runs a write transaction that may change the schema; the cache never keeps a schema whose
    /// transaction rolled back.
    func writeWithSchema<T: Sendable>(container: String, environment: DatabaseEnvironment,
                                      _ body: @Sendable @escaping (any StorageWriter) async throws -> T) async throws -> T {
        do {
            return try await storage.write(body)
        } catch {
            invalidateSchema(container: container, environment: environment)
            throw error
        }
    }
}

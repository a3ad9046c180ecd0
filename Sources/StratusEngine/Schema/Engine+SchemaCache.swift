import Foundation
import StratusModel

extension Engine {
    static let schemaCacheLifetime: TimeInterval = 2

    static func schemaKey(_ container: String, _ environment: DatabaseEnvironment) -> String {
        "\(container)\u{1F}\(environment.rawValue)"
    }

    /// The schema of a container environment, from the cache or the store.
    ///
    /// This process's writes update the cache before they commit and drop it if the commit fails
    /// (`invalidateSchema`). Changes made by another process (`stratus schema import` while the
    /// server runs, or another instance) are seen within `schemaCacheLifetime`; schema writes
    /// always merge onto the stored types, never onto the cache, so none is lost.
    func schema(container: String, environment: DatabaseEnvironment, reader: any StorageReader) async throws -> Schema {
        if let cached = freshCachedSchema(container: container, environment: environment) { return cached }
        let now = Date()
        let loaded = try await reader.schema(container: container, environment: environment)
        schemaCache.withLock { $0[Engine.schemaKey(container, environment)] = (loaded, now) }
        return loaded
    }

    /// The schema without opening a read transaction when the cache holds a fresh one.
    func schema(container: String, environment: DatabaseEnvironment) async throws -> Schema {
        if let cached = freshCachedSchema(container: container, environment: environment) { return cached }
        return try await storage.read { reader in
            try await self.schema(container: container, environment: environment, reader: reader)
        }
    }

    private func freshCachedSchema(container: String, environment: DatabaseEnvironment) -> Schema? {
        guard let cached = schemaCache.withLock({ $0[Engine.schemaKey(container, environment)] }),
            Date().timeIntervalSince(cached.loaded) < Engine.schemaCacheLifetime
        else { return nil }
        return cached.schema
    }

    func cacheSchema(_ schema: Schema, container: String, environment: DatabaseEnvironment) {
        schemaCache.withLock { $0[Engine.schemaKey(container, environment)] = (schema, Date()) }
    }

    public func invalidateSchema(container: String, environment: DatabaseEnvironment) {
        _ = schemaCache.withLock { $0.removeValue(forKey: Engine.schemaKey(container, environment)) }
    }

    /// Runs a write transaction that may change the schema; the cache never keeps a schema whose
    /// transaction rolled back.
    func writeWithSchema<T: Sendable>(
        container: String, environment: DatabaseEnvironment,
        _ body: @Sendable @escaping (any StorageWriter) async throws -> T
    ) async throws -> T {
        do {
            return try await storage.write(body)
        } catch {
            invalidateSchema(container: container, environment: environment)
            throw error
        }
    }
}

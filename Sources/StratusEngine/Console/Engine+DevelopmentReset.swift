/// Resetting a container's development environment to production's schema, as CloudKit Console
/// does: development data goes, production is untouched, user accounts stay.
extension Engine {
    public func developmentFootprint(container: String) async throws -> DevelopmentFootprint {
        try await storage.read { reader in try await reader.developmentFootprint(container: container) }
    }

    /// Deletes every development record (users' `Users` records stay), custom zone, share and
    /// subscription of the container, expires its development sync tokens, and replaces its
    /// development schema, security roles and grants with production's. Returns what was removed.
    @discardableResult
    public func resetDevelopment(container: String) async throws -> DevelopmentFootprint {
        let production = try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.schema(container: container, environment: .production)
        }
        let removed = try await writeWithSchema(container: container, environment: .development) { writer in
            try await writer.lockSchema(container: container, environment: .development)
            let footprint = try await writer.developmentFootprint(container: container)
            try await writer.clearDevelopment(container: container)
            for recordType in production.recordTypes.values {
                try await writer.saveRecordType(recordType, container: container, environment: .development)
            }
            return footprint
        }
        invalidateSchema(container: container, environment: .development)
        await forgetCachedCredentials()
        await announce([.schemaChanged(container: container, environment: .development)])
        logger.notice("development environment of \(container) reset to production's schema: \(removed.records) records, \(removed.zones) zones, \(removed.subscriptions) subscriptions removed")
        return removed
    }
}

extension Engine {
    /// Takes index options off a field of a development record type. Queries that need them are
    /// then refused in production once deployed without them, and development adds them back
    /// when a query asks (as it adds any missing index). Production keeps what was deployed:
    /// a deploy only adds.
    public func removeIndexes(
        _ flags: IndexFlags, field: String, recordType: String, container: String,
        environment: DatabaseEnvironment
    ) async throws {
        guard environment == .development else {
            throw CloudKitError.badRequest("index options are removed in development only; production keeps what was deployed")
        }
        try await writeWithSchema(container: container, environment: environment) { writer in
            try await writer.lockSchema(container: container, environment: environment)
            var stored = try await writer.schema(container: container, environment: environment)
            guard var type = stored.recordTypes[recordType] else {
                throw CloudKitError(.notFound, "record type '\(recordType)' does not exist in \(environment.rawValue)")
            }
            guard var fieldSchema = type.fields[field] else {
                throw CloudKitError(.notFound, "record type '\(recordType)' has no field '\(field)'")
            }
            guard !fieldSchema.indexes.isDisjoint(with: flags) else {
                throw CloudKitError.badRequest("\(recordType).\(field) has no \(flags.names.joined(separator: " ")) index to remove")
            }
            fieldSchema.indexes.subtract(flags)
            type.fields[field] = fieldSchema
            try await writer.saveRecordType(type, container: container, environment: environment)
            stored.recordTypes[recordType] = type
            self.cacheSchema(stored, container: container, environment: environment)
        }
        await announce([.schemaChanged(container: container, environment: environment)])
    }
}

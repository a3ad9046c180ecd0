import StratusModel

extension RecordTypeSchema {
    /// This type plus everything `other` adds: new fields, index options, composite indexes.
    /// Nothing is removed. A field declared with two different types is refused.
    public func union(_ other: RecordTypeSchema) throws -> RecordTypeSchema {
        var merged = self
        for (name, field) in other.fields {
            if let existing = merged.fields[name] {
                guard existing.type == field.type else {
                    throw CloudKitError.badRequest(
                        "field '\(name)' of record type '\(self.name)' is \(existing.type) in the schema and \(field.type) in the change; schema changes are additive only — use a new field name")
                }
                merged.fields[name]?.indexes.formUnion(field.indexes)
            } else {
                merged.fields[name] = field
            }
        }
        for (system, flags) in other.systemIndexes { merged.systemIndexes[system, default: []].formUnion(flags) }
        for compound in other.compoundIndexes where !merged.compoundIndexes.contains(compound) {
            merged.compoundIndexes.append(compound)
        }
        return merged
    }
}

extension Engine {
    /// Saves schema changes made during a write transaction, merged onto the types as stored now
    /// (another process — `stratus schema import` — may have changed them since this engine
    /// cached them). Updates the cache with the result.
    func saveSchemaChanges(
        _ changed: [RecordTypeSchema], container: String, environment: DatabaseEnvironment,
        writer: any StorageWriter
    ) async throws {
        guard !changed.isEmpty else { return }
        // Concurrent writers (several instances) must merge onto each other's changes.
        try await writer.lockSchema(container: container, environment: environment)
        var stored = try await writer.schema(container: container, environment: environment)
        for recordType in changed {
            let merged = try (stored.recordTypes[recordType.name] ?? RecordTypeSchema(name: recordType.name)).union(recordType)
            if merged != stored.recordTypes[recordType.name] {
                try await writer.saveRecordType(merged, container: container, environment: environment)
                logger.info("schema: saved record type '\(recordType.name)' in \(container)/\(environment.rawValue)")
            }
            stored.recordTypes[recordType.name] = merged
        }
        cacheSchema(stored, container: container, environment: environment)
    }
}

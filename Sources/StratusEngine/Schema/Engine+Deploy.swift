import StratusModel

extension Engine {
    /// Copies the development schema to production, additively (reference §12.1): new types,
    /// new fields and new indexes are added; a field whose type differs between the two is
    /// refused, and nothing in production is removed.
    public func deploySchema(container: String) async throws {
        try await writeWithSchema(container: container, environment: .production) { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            let development = try await writer.schema(container: container, environment: .development)
            var production = try await writer.schema(container: container, environment: .production)
            var changed: [RecordTypeSchema] = []
            for (name, source) in development.recordTypes.sorted(by: { $0.key < $1.key }) {
                var target = production.recordTypes[name] ?? RecordTypeSchema(name: name)
                let before = target
                for (fieldName, field) in source.fields {
                    if let existing = target.fields[fieldName] {
                        guard existing.type == field.type else {
                            throw CloudKitError.badRequest("field '\(fieldName)' of record type '\(name)' is \(existing.type) in production and \(field.type) in development; production schema changes are additive only — use a new field name")
                        }
                        target.fields[fieldName]?.indexes.formUnion(field.indexes)
                    } else {
                        target.fields[fieldName] = field
                    }
                }
                for (system, flags) in source.systemIndexes { target.systemIndexes[system, default: []].formUnion(flags) }
                for compound in source.compoundIndexes where !target.compoundIndexes.contains(compound) {
                    target.compoundIndexes.append(compound)
                }
                if target != before { changed.append(target) }
            }
            for recordType in changed {
                try await writer.saveRecordType(recordType, container: container, environment: .production)
                production.recordTypes[recordType.name] = recordType
            }
            self.cacheSchema(production, container: container, environment: .production)
        }
        logger.notice("schema: deployed development schema of \(container) to production")
    }
}

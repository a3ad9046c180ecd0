import StratusModel

extension Engine {
    /// Writes records copied from another CKWS endpoint (`stratus import`), in one transaction.
    ///
    /// Differs from records/modify where a copy must: `created` and `modified` (timestamps and
    /// users) are the source's, not the time and caller of the write; `VALIDATE` references are
    /// not checked, so records may arrive in any order; assets name blobs the caller has already
    /// stored (their rows are touched here, so collection keeps them). A record already stored
    /// with the same type, fields, parent and stamps is left alone, so a re-run changes nothing.
    /// Schema changes follow the environment's rules: development extends the schema, production
    /// refuses types and fields it does not declare. Records of the server's `Users` type are
    /// refused: the target makes its own, one per account.
    public func importRecords(_ batch: ImportBatch) async throws -> ImportBatchOutcome {
        let store = batch.store
        let mode = SchemaMode(store.environment)
        let now = nowMilliseconds()
        if let user = batch.records.first(where: { $0.recordType == CloudKitSystemType.users }) {
            throw CloudKitError.badRequest("record '\(user.recordName)' is a '\(CloudKitSystemType.users)' record; the target makes those itself, one per account")
        }
        let (outcome, schemaChanged) = try await writeWithSchema(container: store.container, environment: store.environment) { writer in
            if batch.zoneName != ZoneID.defaultZoneName {
                guard store.scope == .private else {
                    throw CloudKitError(.zoneNotFound, "zone '\(batch.zoneName)' cannot be imported into the \(store.scope.rawValue) database: it has only _defaultZone")
                }
                _ = try await writer.createZone(store, name: batch.zoneName)
            }
            var schema = try await self.schema(container: store.container, environment: store.environment, reader: writer)
            var changedTypes = Set<String>()
            let existing = try await writer.records(store, zoneName: batch.zoneName, names: batch.records.map(\.recordName))
            var outcome = ImportBatchOutcome(written: 0, unchanged: 0)
            for record in batch.records {
                let path = "record '\(record.recordName)'"
                let inputs = record.fields.mapValues { FieldInput.value($0, path: path) }
                let (resolved, typeSchema) = try FieldResolver(mode: mode).resolve(
                    fields: inputs, recordType: record.recordType, existing: schema.recordTypes[record.recordType], path: path)
                if schema.recordTypes[record.recordType] != typeSchema {
                    schema.recordTypes[record.recordType] = typeSchema
                    changedTypes.insert(record.recordType)
                }
                var fields = resolved.compactMapValues { $0 }
                if let parent = record.parent {
                    try ParentEdit.set(parent).applied(to: &fields, recordName: record.recordName, path: path)
                }
                let current = existing[record.recordName]
                if let current, current.recordType == record.recordType, current.created == record.created,
                    current.modified == record.modified, current.fields == fields
                {
                    outcome.unchanged += 1
                    continue
                }
                if let current, current.recordType != record.recordType {
                    throw CloudKitError.badRequest(
                        "record '\(record.recordName)' is a '\(current.recordType)' in the target and a '\(record.recordType)' at the source; a record cannot change its type")
                }
                for asset in fields.values.flatMap(\.assets) {
                    guard let checksum = asset.fileChecksum, let size = asset.size else {
                        throw CloudKitError.badRequest("\(path): an asset without a checksum and size; store the file before importing the record")
                    }
                    try await writer.touchBlob(checksum: checksum, size: size, atMilliseconds: now)
                }
                let row = RecordRow(
                    zoneName: batch.zoneName, recordName: record.recordName, recordType: record.recordType, changeTag: "",
                    fields: fields, created: record.created, modified: record.modified)
                _ = try await writer.saveRecord(store, record: row, encodedFields: nil, recordType: typeSchema, replacing: current != nil)
                outcome.written += 1
            }
            try await self.saveSchemaChanges(
                changedTypes.compactMap { schema.recordTypes[$0] }, container: store.container, environment: store.environment, writer: writer)
            return (outcome, !changedTypes.isEmpty)
        }
        if schemaChanged { await announce([.schemaChanged(container: store.container, environment: store.environment)]) }
        return outcome
    }
}

extension Engine {
    /// Throws NOT_FOUND, saying how to create it, when the container does not exist: an import
    /// checks its target before it reads anything from the source.
    public func requireContainer(_ identifier: String) async throws {
        let found = try await storage.read { reader in try await reader.container(identifier) != nil }
        if !found { throw Engine.unknownContainer(identifier) }
    }
}

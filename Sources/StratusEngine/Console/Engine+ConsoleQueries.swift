import StratusModel

/// What the web console reads beside the CKWS operations it calls like any client: the
/// containers, a schema, a container's users and the reach of a delete.
extension Engine {
    public func containerIdentifiers() async throws -> [String] {
        try await storage.read { reader in try await reader.containerIdentifiers() }
    }

    /// The caller the console acts as in a container: its developer identity, or a user of it.
    public func consoleCaller(container: String, actingAs userRecordName: String? = nil) async throws -> Caller {
        guard let row = try await storage.read({ reader in try await reader.container(container) }) else {
            throw Engine.unknownContainer(container)
        }
        return Caller(userRecordName: userRecordName, developerRecordName: row.developerRecordName)
    }

    public func currentSchema(container: String, environment: DatabaseEnvironment) async throws -> Schema {
        try await storage.read { reader in try await reader.schema(container: container, environment: environment) }
    }

    public func userAccounts(container: String, limit: Int = 500) async throws -> [UserAccount] {
        try await storage.read { reader in try await reader.userAccounts(container: container, limit: limit) }
    }

    /// How many other records deleting this one takes with it through DELETE_SELF references
    /// (followed transitively, each counted once, up to `limit`).
    public func deleteCascadeCount(_ store: StoreKey, zoneName: String, recordName: String, limit: Int = 10_000) async throws -> Int {
        try await storage.read { reader in
            var seen: Set<String> = ["\(zoneName)/\(recordName)"]
            var pending = [(zoneName, recordName)]
            while let next = pending.popLast(), seen.count <= limit {
                for referrer in try await reader.referrers(store, zoneName: next.0, recordName: next.1) where referrer.action == .deleteSelf {
                    if seen.insert("\(referrer.zoneName)/\(referrer.recordName)").inserted {
                        pending.append((referrer.zoneName, referrer.recordName))
                    }
                }
            }
            return seen.count - 1
        }
    }
}

extension Engine {
    /// Adds index options to a field of a record type (additive, as every schema change here).
    public func addIndexes(_ flags: IndexFlags, field: String, recordType: String, container: String, environment: DatabaseEnvironment) async throws {
        let schema = try await currentSchema(container: container, environment: environment)
        guard let type = schema.recordTypes[recordType] else {
            throw CloudKitError(.notFound, "record type '\(recordType)' does not exist in \(environment.rawValue)")
        }
        guard var fieldSchema = type.fields[field] else {
            throw CloudKitError(.notFound, "record type '\(recordType)' has no field '\(field)'")
        }
        fieldSchema.indexes.formUnion(flags)
        try await mergeSchema(
            Schema(recordTypes: [recordType: RecordTypeSchema(name: recordType, fields: [field: fieldSchema])]),
            into: environment, container: container)
    }
}

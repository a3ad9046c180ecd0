/// How far a storage backend's database is migrated, for readiness checks: an instance whose
/// database another (newer) instance migrated further, or that did not finish migrating, must
/// not take traffic.
public struct SchemaStatus: Sendable, Equatable {
    /// The newest migration recorded in the database (0 for none).
    public var applied: Int
    /// The newest migration this build knows.
    public var known: Int

    public init(applied: Int, known: Int) {
        self.applied = applied
        self.known = known
    }

    public var isCurrent: Bool { applied == known }
}

/// A storage backend that can say how far its database is migrated.
public protocol SchemaStatusReporting: Sendable {
    func schemaStatus() async throws -> SchemaStatus
}

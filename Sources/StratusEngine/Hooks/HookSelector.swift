/// The records a hook runs for: one record type, in every container, environment and database
/// unless narrowed to one of each.
public struct HookSelector: Sendable, Hashable, CustomStringConvertible {
    public var recordType: String
    public var container: String?
    public var environment: DatabaseEnvironment?
    /// The database as the caller addressed it: a participant's write through the shared
    /// database is `.shared`, though it lands in the owner's private store.
    public var database: DatabaseScope?

    public init(
        _ recordType: String, container: String? = nil, environment: DatabaseEnvironment? = nil, database: DatabaseScope? = nil
    ) {
        self.recordType = recordType
        self.container = container
        self.environment = environment
        self.database = database
    }

    func matches(recordType: String, container: String, environment: DatabaseEnvironment, database: DatabaseScope) -> Bool {
        self.recordType == recordType && (self.container ?? container) == container
            && (self.environment ?? environment) == environment && (self.database ?? database) == database
    }

    public var description: String {
        [container, environment?.rawValue, database?.rawValue, recordType].compactMap { $0 }.joined(separator: "/")
    }
}

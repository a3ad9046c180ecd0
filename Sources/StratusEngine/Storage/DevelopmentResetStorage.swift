/// What resetting a container's development environment removes, counted before it goes.
public struct DevelopmentFootprint: Sendable, Hashable {
    /// Records of every development database (users' `Users` records stay).
    public var records: Int
    /// Custom zones of every development database.
    public var zones: Int
    public var recordTypes: Int
    public var subscriptions: Int

    public init(records: Int, zones: Int, recordTypes: Int, subscriptions: Int) {
        self.records = records
        self.zones = zones
        self.recordTypes = recordTypes
        self.subscriptions = subscriptions
    }
}

public protocol DevelopmentResetStorageReader: Sendable {
    func developmentFootprint(container: String) async throws -> DevelopmentFootprint
}

public protocol DevelopmentResetStorageWriter: DevelopmentResetStorageReader {
    /// Deletes the container's development data: every record except users' `Users` records,
    /// every custom zone, share, subscription and change-log entry (sync tokens from before are
    /// refused as expired), and its record types; security roles, members and grants become
    /// production's. The caller saves production's record types into development.
    func clearDevelopment(container: String) async throws
}

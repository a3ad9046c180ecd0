import StratusModel

/// records/lookup as the engine takes it: records of one zone, by name.
public struct RecordLookup: Sendable, Hashable {
    public var zoneID: ZoneID
    /// In the order the results come back; a name may appear more than once.
    public var recordNames: [String]

    public init(zoneID: ZoneID = .default, recordNames: [String]) {
        self.zoneID = zoneID
        self.recordNames = recordNames
    }
}

/// Records read for a caller: one outcome per requested record, in request order.
public struct FetchedRecords: Sendable {
    /// The scope the records were read under: the caller's own, or for a shared-database request
    /// the owner's store with the participant as caller (zone IDs and asset links name the owner).
    public var readScope: RequestScope
    /// A record the caller may read, or why not (NOT_FOUND, ACCESS_DENIED).
    public var results: [Result<RecordRow, CloudKitError>]
}

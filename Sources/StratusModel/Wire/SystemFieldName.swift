/// The system fields a query can filter or sort on with `systemFieldName` (docs/protocol.md §3.2).
public enum SystemFieldName: String, Sendable, Hashable, CaseIterable {
    case recordName
    case createdTimestamp
    case modifiedTimestamp
    case createdUserRecordName
    case modifiedUserRecordName
    case share
    case parent

    /// The schema-language name (`___recordID`), used for index flags on system fields.
    public var schemaName: String {
        switch self {
        case .recordName: return "___recordID"
        case .createdTimestamp: return "___createTime"
        case .modifiedTimestamp: return "___modTime"
        case .createdUserRecordName: return "___createdBy"
        case .modifiedUserRecordName: return "___modifiedBy"
        case .share: return "___share"
        case .parent: return "___parent"
        }
    }

    public init?(schemaName: String) {
        let lowered = schemaName.lowercased()
        guard let match = SystemFieldName.allCases.first(where: { $0.schemaName.lowercased() == lowered }) else { return nil }
        self = match
    }

    /// The value type the field compares as.
    public var valueType: FieldType {
        switch self {
        case .createdTimestamp, .modifiedTimestamp: return .timestamp
        case .createdUserRecordName, .modifiedUserRecordName, .share, .parent: return .reference
        case .recordName: return .string
        }
    }
}

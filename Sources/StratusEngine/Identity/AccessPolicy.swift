import StratusModel

/// What a security role may do with records of a type (docs/protocol.md §12.1). WRITE covers update and
/// delete, as in CloudKit.
public enum RecordPermission: String, Sendable, Hashable, CaseIterable, Comparable {
    case read
    case create
    case write

    public static func < (lhs: RecordPermission, rhs: RecordPermission) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Built-in security roles.
public enum BuiltInRole {
    /// Everyone, signed in or not.
    public static let world = "_world"
    /// Any signed-in user.
    public static let authenticated = "_icloud"
    /// The user who created the record.
    public static let creator = "_creator"
    public static let all: Set<String> = [world, authenticated, creator]

    /// CloudKit's grants for a record type nobody has configured: world read, authenticated
    /// create, creator read and write.
    public static let defaultGrants: [String: Set<RecordPermission>] = [
        world: [.read], authenticated: [.create], creator: [.read, .write],
    ]
}

/// The public-database permissions of one caller, resolved when the request is authenticated:
/// the container's grants and the caller's roles.
public struct AccessPolicy: Sendable {
    /// Record type → role → permissions; a type absent here has `BuiltInRole.defaultGrants`.
    public var grants: [String: [String: Set<RecordPermission>]]
    /// The caller's roles (built-in and assigned, without `_creator`); `nil` for the developer
    /// (a server-to-server key, the CLI, engine-internal callers), who may do everything.
    public var roles: Set<String>?
    /// The signed-in user, who is `_creator` of the records they created.
    public var userRecordName: String?

    public init(grants: [String: [String: Set<RecordPermission>]], roles: Set<String>?, userRecordName: String?) {
        self.grants = grants
        self.roles = roles
        self.userRecordName = userRecordName
    }

    /// The developer's policy: no restriction.
    public static let unrestricted = AccessPolicy(grants: [:], roles: nil, userRecordName: nil)

    /// Grants as stored, grouped by record type.
    public static func grouping(_ rows: [GrantRow]) -> [String: [String: Set<RecordPermission>]] {
        var grants: [String: [String: Set<RecordPermission>]] = [:]
        for row in rows { grants[row.recordType, default: [:]][row.role] = row.permissions }
        return grants
    }

    public var isUnrestricted: Bool { roles == nil }

    /// A caller with only an API token: neither a user nor the developer.
    public var isAnonymous: Bool { roles != nil && userRecordName == nil }

    /// Whether the caller may `permission` a record of `recordType` created by `creator`
    /// (`nil` for a record that does not exist yet).
    public func may(_ permission: RecordPermission, recordType: String, creator: String?) -> Bool {
        guard let roles else { return true }
        let typeGrants = grants[recordType] ?? BuiltInRole.defaultGrants
        // The creator role is checked on its own rather than added to a copy of `roles`: this
        // runs once per returned record.
        if let userRecordName, creator == userRecordName, typeGrants[BuiltInRole.creator]?.contains(permission) == true {
            return true
        }
        return roles.contains { typeGrants[$0]?.contains(permission) == true }
    }

    /// The error for a refused operation: sign in first if nobody is signed in, else a plain denial.
    /// It names the permission and the type, never who holds what.
    public func denial(_ permission: RecordPermission, recordType: String) -> CloudKitError {
        if userRecordName == nil {
            return CloudKitError(.authenticationRequired, "\(permission.rawValue) access to '\(recordType)' records needs a signed-in user: add ckWebAuthToken")
        }
        return CloudKitError(.accessDenied, "your security roles do not grant \(permission.rawValue.uppercased()) on record type '\(recordType)'")
    }
}

import Foundation
import StratusModel

extension Engine {
    /// Creates a custom security role. Names of built-in roles start with `_` and are refused.
    public func createRole(_ name: String, container: String, environment: DatabaseEnvironment) async throws {
        try Engine.checkRoleName(name)
        try await storage.write { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            try await writer.createSecurityRole(name, container: container, environment: environment)
        }
    }

    /// Gives `role` exactly `permissions` on `recordType` (an empty set revokes). The first grant
    /// on a type starts from CloudKit's defaults, so they keep applying unless changed.
    public func grant(
        _ permissions: Set<RecordPermission>, on recordType: String, to role: String,
        container: String, environment: DatabaseEnvironment
    ) async throws {
        try await storage.write { writer in
            try await self.checkRoleExists(role, container: container, environment: environment, reader: writer)
            let existing = try await writer.grants(container: container, environment: environment).filter { $0.recordType == recordType }
            if existing.isEmpty {
                for (defaultRole, defaultPermissions) in BuiltInRole.defaultGrants {
                    try await writer.saveGrant(
                        GrantRow(recordType: recordType, role: defaultRole, permissions: defaultPermissions),
                        container: container, environment: environment)
                }
            }
            try await writer.saveGrant(
                GrantRow(recordType: recordType, role: role, permissions: permissions),
                container: container, environment: environment)
        }
        await forgetCachedCredentials()
    }

    /// Gives a user a custom role.
    public func assignRole(_ role: String, to userRecordName: String, container: String, environment: DatabaseEnvironment) async throws {
        guard !BuiltInRole.all.contains(role) else {
            throw CloudKitError.badRequest("'\(role)' is a built-in role that users hold automatically; assign a custom role")
        }
        try await storage.write { writer in
            try await self.checkRoleExists(role, container: container, environment: environment, reader: writer)
            guard try await writer.userAccount(container: container, userRecordName: userRecordName) != nil else {
                throw CloudKitError(.notFound, "container '\(container)' has no user '\(userRecordName.prefix(80))'")
            }
            try await writer.assignRole(role, to: userRecordName, container: container, environment: environment)
        }
        await forgetCachedCredentials()
    }

    /// Every role of a container environment with its grants per record type.
    public func securityRoles(container: String, environment: DatabaseEnvironment) async throws -> (roles: [String], grants: [GrantRow]) {
        try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return (
                try await reader.securityRoles(container: container, environment: environment),
                try await reader.grants(container: container, environment: environment)
            )
        }
    }

    func checkRoleExists(_ role: String, container: String, environment: DatabaseEnvironment, reader: any StorageReader) async throws {
        guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
        let custom = try await reader.securityRoles(container: container, environment: environment)
        guard BuiltInRole.all.contains(role) || custom.contains(role) else {
            throw CloudKitError(.notFound, "no role '\(role.prefix(80))' in \(container) \(environment.rawValue); create it with `stratus role create \(role.prefix(80)) --container \(container)`")
        }
    }

    static func checkRoleName(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-."))
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("_"), name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw CloudKitError.badRequest("role name '\(name.prefix(80))' must be 1 to 64 letters, digits, '-', '.' or '_', not starting with '_' (reserved for built-in roles)")
        }
    }
}

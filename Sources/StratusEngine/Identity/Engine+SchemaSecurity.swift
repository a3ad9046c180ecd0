import Foundation
import StratusModel

extension Engine {
    /// Applies the `CREATE ROLE` statements and `GRANT … TO role` items of an imported schema file
    /// (as `SchemaLanguage` returns them). A type's GRANT items are its complete permissions, as in
    /// a schema CloudKit exports: built-in roles the file does not name get nothing on that type.
    /// Returns how many statements were applied.
    @discardableResult
    public func applySecurityStatements(_ statements: [String], container: String, environment: DatabaseEnvironment) async throws -> Int {
        var roles: [String] = []
        var grants: [String: [String: Set<RecordPermission>]] = [:]
        for statement in statements {
            if statement.hasPrefix("CREATE ROLE ") {
                roles.append(String(statement.dropFirst("CREATE ROLE ".count)))
                continue
            }
            guard let colon = statement.range(of: ": GRANT "), let to = statement.range(of: " TO ", options: .backwards) else {
                throw CloudKitError.badRequest("cannot read the security statement '\(statement.prefix(120))'")
            }
            let recordType = String(statement[..<colon.lowerBound])
            let role = String(statement[to.upperBound...])
            var permissions = Set<RecordPermission>()
            for word in statement[colon.upperBound..<to.lowerBound].split(separator: ",") {
                let name = word.trimmingCharacters(in: .whitespaces).lowercased()
                guard let permission = RecordPermission(rawValue: name) else {
                    throw CloudKitError.badRequest("'\(name)' in '\(statement.prefix(120))' is not a permission; use READ, CREATE or WRITE")
                }
                permissions.insert(permission)
            }
            grants[recordType, default: [:]][role, default: []].formUnion(permissions)
        }
        for role in roles { try await createRole(role, container: container, environment: environment) }
        for (recordType, typeGrants) in grants {
            for role in BuiltInRole.all.union(typeGrants.keys) {
                try await grant(typeGrants[role] ?? [], on: recordType, to: role, container: container, environment: environment)
            }
        }
        return statements.count
    }
}

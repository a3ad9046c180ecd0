import StratusEngine

/// The parts of `/database/1/{container}/{environment}/{database}/{operation…}`, validated.
struct DatabasePath: Sendable {
    var container: String
    var environment: DatabaseEnvironment
    var scope: DatabaseScope
    var operation: DatabaseOperation

    init(container: String, environment: String, database: String, operation: String) throws(CloudKitError) {
        guard let environment = DatabaseEnvironment(rawValue: environment) else {
            throw .badRequest("unknown environment '\(environment.prefix(80))' in the path; use \(DatabasePath.list(DatabaseEnvironment.allCases.map(\.rawValue)))")
        }
        guard let scope = DatabaseScope(rawValue: database) else {
            throw .badRequest("unknown database '\(database.prefix(80))' in the path; use \(DatabasePath.list(DatabaseScope.allCases.map(\.rawValue)))")
        }
        guard let operation = DatabaseOperation(rawValue: operation) else {
            throw CloudKitError(.notFound, "unknown operation '\(operation.prefix(120))'; this server supports \(DatabasePath.list(DatabaseOperation.allCases.map(\.rawValue)))")
        }
        self.container = container
        self.environment = environment
        self.scope = scope
        self.operation = operation
    }

    /// "a, b or c".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

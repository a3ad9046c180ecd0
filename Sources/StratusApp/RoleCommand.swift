import ArgumentParser
import StratusEngine
import StratusModel

/// `stratus role create|grant|assign|list`: security roles and record-type grants per environment.
struct RoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role", abstract: "Manage security roles and grants.", subcommands: [Create.self, Grant.self, Assign.self, List.self])

    struct Scope: ParsableArguments {
        @Option(help: "Container identifier.")
        var container: String
        @Option(help: "development or production.")
        var environment: String = "development"
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a custom role.")

        @Argument(help: "Role name (letters, digits, '-', '.', '_'; not starting with '_').")
        var name: String
        @OptionGroup var scope: Scope
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                let environment = try parseEnvironment(scope.environment)
                try await withEngine(data) { engine in try await engine.createRole(name, container: scope.container, environment: environment) }
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set what a role may do with a record type: GRANT READ, CREATE, WRITE TO role.",
            discussion: "Replaces the role's permissions on the type; --permissions none revokes. Built-in roles: _world (everyone), _icloud (signed-in users), _creator (the record's creator).")

        @Argument(help: "Role: a custom role, _world, _icloud or _creator.")
        var role: String
        @Option(help: "Record type.")
        var recordType: String
        @Option(help: "Comma-separated: read, create, write; or none.")
        var permissions: String
        @OptionGroup var scope: Scope
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                let environment = try parseEnvironment(scope.environment)
                var granted = Set<RecordPermission>()
                for word in permissions.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where word != "none" {
                    guard let permission = RecordPermission(rawValue: word) else {
                        throw CloudKitError.badRequest("unknown permission '\(word)'; use read, create, write or none")
                    }
                    granted.insert(permission)
                }
                try await withEngine(data) { engine in
                    try await engine.grant(granted, on: recordType, to: role, container: scope.container, environment: environment)
                }
            }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a user a custom role.")

        @Argument(help: "Role name.")
        var role: String
        @Option(help: "The user's userRecordName.")
        var user: String
        @OptionGroup var scope: Scope
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                let environment = try parseEnvironment(scope.environment)
                try await withEngine(data) { engine in
                    try await engine.assignRole(role, to: user, container: scope.container, environment: environment)
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print custom roles and configured grants as JSON.")

        @OptionGroup var scope: Scope
        @OptionGroup var data: DataOption

        func run() async throws {
            let (roles, grants) = try await reportingErrors {
                let environment = try parseEnvironment(scope.environment)
                return try await withEngine(data) { engine in
                    try await engine.securityRoles(container: scope.container, environment: environment)
                }
            }
            let grantRows: [JSONValue] = grants.map { grant in
                [
                    "recordType": .string(grant.recordType), "role": .string(grant.role),
                    "permissions": .array(grant.permissions.sorted().map { .string($0.rawValue) }),
                ]
            }
            Console.out(JSONValue.object(["roles": .array(roles.map(JSONValue.string)), "grants": .array(grantRows)]).serializedString)
        }
    }
}

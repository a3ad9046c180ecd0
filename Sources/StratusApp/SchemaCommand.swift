import ArgumentParser
import Foundation
import StratusEngine

/// `stratus schema export|import|deploy`: the schema in CloudKit's text language.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Export, import and deploy a container's schema.",
        subcommands: [Export.self, Import.self, Deploy.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the schema of an environment in CloudKit's schema language.")

        @Option(help: "Container identifier.") var container: String
        @Option(help: "development or production.") var environment: String = "development"
        @OptionGroup var data: DataOption

        func run() async throws {
            let environment = try parseEnvironment(environment)
            let text = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.exportSchema(container: container, environment: environment) }
            }
            Console.out(text)
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the record types, fields and indexes of a schema file (.ckdb) to an environment.",
            discussion: "Additive: nothing is removed, and a field whose type differs is refused. Use `-` to read standard input.")

        @Argument(help: "Schema file, or - for standard input.") var file: String
        @Option(help: "Container identifier.") var container: String
        @Option(help: "development or production.") var environment: String = "development"
        @OptionGroup var data: DataOption

        func run() async throws {
            let environment = try parseEnvironment(environment)
            let text: String
            if file == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    Console.error("error: cannot read schema file '\(file)'; check the path")
                    throw ExitCode.failure
                }
                text = String(decoding: contents, as: UTF8.self)
            }
            let parsed = try await reportingErrors {
                try await withEngine(data) { engine in
                    let parsed = try await engine.importSchema(text, container: container, environment: environment)
                    try await engine.applySecurityStatements(parsed.securityStatements, container: container, environment: environment)
                    return parsed
                }
            }
            Console.out("imported \(parsed.schema.recordTypes.count) record types into \(container)/\(environment.rawValue)")
            if !parsed.securityStatements.isEmpty {
                Console.out("applied \(parsed.securityStatements.count) security statements (roles and grants); see `stratus role list`")
            }
        }
    }

    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the development schema (types, fields, indexes) to production, additively.")

        @Option(help: "Container identifier.") var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                try await withEngine(data) { engine in try await engine.deploySchema(container: container) }
            }
            Console.out("deployed the development schema of \(container) to production")
        }
    }
}

func parseEnvironment(_ text: String) throws -> DatabaseEnvironment {
    guard let environment = DatabaseEnvironment(rawValue: text.lowercased()) else {
        Console.error("error: environment '\(text)' is not valid; use development or production")
        throw ExitCode.failure
    }
    return environment
}

import ArgumentParser

/// `stratus token create --container ID`: prints a new API token alone.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Manage API tokens.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token for a container and print it.")

        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let token = try await reportingErrors {
                try await withEngine(data.folder) { engine in try await engine.createAPIToken(container: container) }
            }
            Console.out(token)
        }
    }
}

import ArgumentParser

/// `stratus container create ID`: prints the new container's API token alone.
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container", abstract: "Manage containers.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container (development and production) and print its API token.")

        @Argument(help: "Container identifier, e.g. iCloud.com.example.App.")
        var identifier: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let token = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.createContainer(identifier) }
            }
            Console.out(token)
        }
    }
}

import ArgumentParser
import StratusModel

/// `stratus user create NAME --container ID`: prints `{"userRecordName", "webAuthToken"}`.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage users.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user and print their record name and web auth token as JSON.")

        @Argument(help: "The user's name.")
        var name: String
        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let user = try await reportingErrors {
                try await withEngine(data.folder) { engine in try await engine.createUser(name: name, container: container) }
            }
            let recordName = JSONValue.string(user.userRecordName).serializedString
            let token = JSONValue.string(user.webAuthToken).serializedString
            Console.out("{\"userRecordName\": \(recordName), \"webAuthToken\": \(token)}")
        }
    }
}

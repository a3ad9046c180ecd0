import ArgumentParser
import Foundation

/// `stratus`: a self-hostable CloudKit Web Services server. Without a subcommand it serves.
struct StratusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "A self-hostable CloudKit Web Services server.",
        subcommands: [
            ServeCommand.self, ContainerCommand.self, TokenCommand.self, UserCommand.self, KeyCommand.self, RoleCommand.self, SchemaCommand.self, UsageCommand.self, SecretCommand.self,
            AdminCommand.self, PushCommand.self, BackupCommand.self, RestoreCommand.self, ImportCommand.self, WebhookCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)

    /// A first word that names no command (`stratus imprt`) is a mistyped command, not arguments
    /// for the default `serve`: say so and list the commands, instead of serve's usage.
    static func main() async {
        if let first = CommandLine.arguments.dropFirst().first, let message = unknownCommand(first) {
            Console.error(message)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }

    /// The error for `word` as a command, or nil when it is one (or an option, or `help`).
    static func unknownCommand(_ word: String) -> String? {
        let names = configuration.subcommands.map { $0._commandName }
        guard !word.hasPrefix("-"), word != "help", !names.contains(word) else { return nil }
        return "error: '\(word)' is not a stratus command. The commands are: \(names.joined(separator: ", ")) "
            + "(serve is the default); `stratus help COMMAND` describes one."
    }
}

import ArgumentParser

/// `stratus`: a self-hostable CloudKit Web Services server. Without a subcommand it serves.
@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "A self-hostable CloudKit Web Services server.",
        subcommands: [ServeCommand.self, ContainerCommand.self, TokenCommand.self, UserCommand.self, KeyCommand.self, RoleCommand.self, SchemaCommand.self, UsageCommand.self, SecretCommand.self, AdminCommand.self, PushCommand.self, BackupCommand.self, RestoreCommand.self],
        defaultSubcommand: ServeCommand.self)
}

import ArgumentParser
import StratusEngine
import StratusServer

/// `stratus admin create EMAIL [--password P]`: web console operators, separate from any
/// container's app users. `stratus admin link EMAIL` prints a one-time sign-in link.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage web console operators (/console).", subcommands: [Create.self, Link.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator, or set an existing one's password.")

        @Argument(help: "The operator's email address (their sign-in name).")
        var email: String
        @Option(help: ArgumentHelp("Password, at least 8 characters; without it the operator signs in with `stratus admin link`.", valueName: "password"))
        var password: String?
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                try await withEngine(data) { engine in
                    try await engine.saveConsoleOperator(email: email, password: password ?? "", hasher: BcryptHasher())
                }
            }
            Console.out("operator \(email.lowercased()) can sign in at /console\(password == nil ? " with `stratus admin link \(email.lowercased())`" : "")")
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time console sign-in link for an operator (created if new); it works for 24 hours.")

        @Argument(help: "The operator's email address.")
        var email: String
        @Option(help: ArgumentHelp("The server's address as a browser reaches it.", valueName: "url"))
        var baseURL = "http://127.0.0.1:8080"
        @OptionGroup var data: DataOption

        func run() async throws {
            let secret = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.createConsoleLink(email: email) }
            }
            Console.out("\(baseURL)/console/link?token=\(secret)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators.")

        @OptionGroup var data: DataOption

        func run() async throws {
            let operators = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.consoleOperators() }
            }
            for account in operators {
                Console.out("\(account.email)\(account.passwordHash.isEmpty ? " (no password: signs in by link)" : "")")
            }
        }
    }
}

import ArgumentParser
import StratusEngine
import StratusModel

/// `stratus token create|list|revoke|origins`: API tokens of a container.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Manage API tokens.", subcommands: [Create.self, List.self, Revoke.self, Origins.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token for a container and print it.")

        @Option(help: "Container identifier.")
        var container: String
        @Option(name: .customLong("origin"), help: "A browser origin allowed to use the token (repeatable; default: any).")
        var origins: [String] = []
        @Option(help: "Where the sign-in page sends users back with ckWebAuthToken= (default: postMessage to the opener).")
        var callbackURL: String?
        @OptionGroup var data: DataOption

        func run() async throws {
            let token = try await reportingErrors {
                try await withEngine(data) { engine in
                    let token = try await engine.createAPIToken(container: container)
                    if !origins.isEmpty || callbackURL != nil {
                        try await engine.configureAPIToken(
                            token, container: container, allowedOrigins: origins.isEmpty ? ["*"] : origins,
                            callbackURL: callbackURL)
                    }
                    return token
                }
            }
            Console.out(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the container's API tokens as JSON: handle (not the token), allowed origins, callback URL.")

        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let tokens = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.apiTokens(container: container) }
            }
            let rows: [JSONValue] = tokens.map { token in
                var row: [String: JSONValue] = [
                    "id": .string(token.id), "allowedOrigins": .array(token.allowedOrigins.map(JSONValue.string)),
                    "createdMilliseconds": .int(token.createdMilliseconds),
                ]
                if let callback = token.callbackURL { row["callbackURL"] = .string(callback) }
                return .object(row)
            }
            Console.out(JSONValue.array(rows).serializedString)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API token (by the id `token list` prints, or the token itself).")

        @Argument(help: "Token id (16 hex digits) or the token.")
        var token: String
        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                try await withEngine(data) { engine in try await engine.revokeAPIToken(container: container, idOrToken: token) }
            }
        }
    }

    struct Origins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the browser origins and sign-in callback URL of an API token.")

        @Argument(help: "The API token.")
        var token: String
        @Option(help: "Container identifier.")
        var container: String
        @Option(name: .customLong("origin"), help: "An allowed origin such as https://app.example.com, or * (repeatable).")
        var origins: [String] = []
        @Option(help: "Where the sign-in page sends users back with ckWebAuthToken=.")
        var callbackURL: String?
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                try await withEngine(data) { engine in
                    try await engine.configureAPIToken(
                        token, container: container, allowedOrigins: origins.isEmpty ? ["*"] : origins,
                        callbackURL: callbackURL)
                }
            }
        }
    }
}

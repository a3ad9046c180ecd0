import ArgumentParser
import Foundation
import StratusEngine
import StratusModel

/// `stratus key add|list|revoke`: server-to-server keys (P-256 public keys) of a container.
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Manage server-to-server keys.", subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a P-256 public key (PEM) and print its key ID.")

        @Option(help: "Container identifier.")
        var container: String
        @Option(help: ArgumentHelp("The public key, PEM (openssl ec -in key.pem -pubout).", valueName: "file.pem"))
        var publicKey: String
        @Flag(help: "Allow the key to act as a named user (X-Stratus-Act-As-User) in private databases.")
        var actAsUsers = false
        @OptionGroup var data: DataOption

        func run() async throws {
            let keyID = try await reportingErrors {
                guard let pem = try? String(contentsOfFile: publicKey, encoding: .utf8) else {
                    throw CloudKitError.badRequest("cannot read \(publicKey); give the path of a PEM public key file")
                }
                return try await withEngine(data) { engine in
                    try await engine.addServerKey(container: container, publicKeyPEM: pem, actAsUsers: actAsUsers)
                }
            }
            Console.out(keyID)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the container's keys as JSON.")

        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let keys = try await reportingErrors {
                try await withEngine(data) { engine in try await engine.serverKeys(container: container) }
            }
            let rows: [JSONValue] = keys.map { key in
                ["keyID": .string(key.keyID), "actAsUsers": .bool(key.actAsUsers), "createdMilliseconds": .int(key.createdMilliseconds)]
            }
            Console.out(JSONValue.array(rows).serializedString)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key.")

        @Argument(help: "The key ID `key add` printed.")
        var keyID: String
        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors {
                try await withEngine(data) { engine in try await engine.revokeServerKey(container: container, keyID: keyID) }
            }
        }
    }
}

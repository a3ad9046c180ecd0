import ArgumentParser
import Foundation
import StratusEngine
import StratusModel
import StratusPush

/// `stratus push apns|vapid|status`: push provider settings per container environment, and what
/// the push queue holds.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Configure push delivery to Apple devices (APNs) and browsers (Web Push).",
        subcommands: [APNs.self, VAPID.self, Status.self])

    struct APNs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apns", abstract: "Store the app's APNs token-signing key, so notifications reach its devices.")

        @Option(help: "Container identifier.")
        var container: String
        @Option(help: ArgumentHelp("The token-signing key Apple issued (AuthKey_XXXXXXXXXX.p8).", valueName: "file.p8"))
        var key: String
        @Option(help: "The key's 10-character key ID.")
        var keyID: String
        @Option(help: "The 10-character team ID of the Apple developer account.")
        var teamID: String
        @Option(help: "The app's bundle ID (the apns-topic).")
        var topic: String
        @Flag(help: "For the production environment (App Store and TestFlight builds); default development.")
        var production = false
        @Option(help: ArgumentHelp("Send to this https URL instead of Apple's host for each token's environment.", valueName: "url"))
        var endpoint: String?
        @OptionGroup var data: DataOption

        func run() async throws {
            let environment: DatabaseEnvironment = production ? .production : .development
            try await reportingErrors {
                guard let pem = try? String(contentsOfFile: key, encoding: .utf8) else {
                    throw CloudKitError.badRequest("cannot read \(key); give the path of the .p8 key file Apple issued")
                }
                let settings = try APNsSettings(keyPEM: pem, keyID: keyID, teamID: teamID, topic: topic, endpoint: endpoint).validated()
                try await withEngine(data) { engine in
                    try await engine.savePushCredential(
                        PushCredentialRow(
                            container: container, environment: environment,
                            provider: APNsSettings.provider, settings: settings.json))
                }
            }
            Console.out("APNs configured for \(container) (\(environment.rawValue)), topic \(topic)")
        }
    }

    struct VAPID: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vapid", abstract: "Make the container's VAPID key pair for Web Push and print the public key.",
            discussion: "Pass the printed key to PushManager.subscribe as applicationServerKey. Running it again replaces the key, and browsers must subscribe again.")

        @Option(help: "Container identifier.")
        var container: String
        @Flag(help: "For the production environment; default development.")
        var production = false
        @Option(help: "A mailto: or https: contact push services may use to reach the operator.")
        var subject = "mailto:admin@localhost"
        @OptionGroup var data: DataOption

        func run() async throws {
            let environment: DatabaseEnvironment = production ? .production : .development
            let publicKey = try await reportingErrors {
                let settings = try VAPIDSettings.generate(subject: subject)
                try await withEngine(data) { engine in
                    try await engine.savePushCredential(
                        PushCredentialRow(
                            container: container, environment: environment,
                            provider: VAPIDSettings.provider, settings: settings.json))
                }
                return try settings.publicKey()
            }
            Console.out(publicKey)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the pushes waiting and the latest ones given up on, as JSON.")

        @Option(help: "How many recent drops to list.")
        var drops = 20
        @OptionGroup var data: DataOption

        func run() async throws {
            let status = try await reportingErrors { try await withEngine(data) { engine in try await engine.pushStatus(drops: drops) } }
            let dropped: [JSONValue] = status.drops.map { drop in
                [
                    "token": .string(String(drop.tokenDigest.prefix(12))), "subscriptionID": .string(drop.subscriptionID),
                    "reason": .string(drop.reason), "atMilliseconds": .int(drop.atMilliseconds),
                ]
            }
            Console.out(JSONValue.object(["pending": .int(Int64(status.pending)), "dropped": .array(dropped)]).serializedString)
        }
    }
}

import ArgumentParser
import StratusEngine
import StratusServer

/// The user `stratus user export|delete` works on, and where their data lives.
struct UserTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The user: a user record name (_…) or the email address of an account that has one.", valueName: "user"))
    var user: String
    @Option(help: "Container identifier, when the email address has accounts in several.")
    var container: String?
    @OptionGroup var data: DataOption
    /// Only for where blobs are kept (the data folder, or S3 from the environment).
    @OptionGroup(visibility: .hidden) var assets: AssetOptions

    /// Opens the storage and the blob store, finds the user and runs `body`; errors are printed
    /// as the other commands print them.
    func run(_ body: (Engine, UserAccount, any BlobStore) async throws -> Void) async throws {
        try await reportingErrors {
            let blobs = try assets.configuration(data.folder).blobs
            try await withEngine(data) { engine in
                try await body(engine, try await engine.findUser(user, container: container), blobs)
            }
        }
    }
}

import ArgumentParser
import StratusEngine
import StratusModel
import StratusServer

/// `stratus user create NAME --container ID [--email E --password P] [--discoverable]`: prints
/// `{"userRecordName", "webAuthToken"}`; `stratus user export` and `stratus user delete` (see their files).
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage users.", subcommands: [Create.self, UserExportCommand.self, UserDeleteCommand.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user and print their record name and a reusable web auth token as JSON.",
            discussion: "With --password (and --email) the user can also sign in on the sign-in page. The printed token never expires; keep it like a password.")

        @Argument(help: "The user's name.")
        var name: String
        @Option(help: "Container identifier.")
        var container: String
        @Option(help: "Email address to sign in with.")
        var email: String?
        @Option(help: "Password (8 to 72 characters); stored as a bcrypt hash. Needs --email.")
        var password: String?
        @Flag(help: "Let users who know the email address discover this user.")
        var discoverable = false
        @OptionGroup var data: DataOption

        func run() async throws {
            let user = try await reportingErrors {
                var options = NewUserOptions(discoverable: discoverable)
                if let email {
                    try Engine.validateEmail(email)
                    options.email = email
                }
                if let password {
                    guard email != nil else { throw CloudKitError.badRequest("--password needs --email: users sign in with their email address") }
                    try Engine.validatePassword(password)
                    options.passwordHash = BcryptHasher().hash(password)
                }
                return try await withEngine(data) { engine in
                    try await engine.createUser(name: name, container: container, options: options)
                }
            }
            let recordName = JSONValue.string(user.userRecordName).serializedString
            let token = JSONValue.string(user.webAuthToken).serializedString
            Console.out("{\"userRecordName\": \(recordName), \"webAuthToken\": \(token)}")
        }
    }
}

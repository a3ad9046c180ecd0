import ArgumentParser
import Foundation
import StratusEngine
import StratusModel
import StratusServer

/// `stratus import`: copies a container's public database (and, given their web auth tokens,
/// users' private databases) from a CloudKit Web Services endpoint
/// (Apple's, or another Stratus) into this server's storage, through the engine, so records keep
/// their `created` and `modified` stamps (docs/decisions/0031-imports-write-through-the-engine.md).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Copy a container's public database and users' private databases from a CloudKit Web Services endpoint (Apple's or another Stratus).",
        discussion: """
            Reads the source with a server-to-server key and writes into --data/--database: the schema of --schema first, \
            then every record of each record type (fields of every type, parents, created and modified stamps), \
            asset files downloaded and stored once each; with --api-token and --web-auth-token, each user's private database \
            into their target account (see --user-map). A checkpoint is written after every page; running the same \
            command again resumes, and records already copied are left untouched.
            """)

    @Option(help: ArgumentHelp("The CloudKit Web Services endpoint to read from.", valueName: "url"))
    var sourceUrl = "https://api.apple-cloudkit.com"
    @Option(help: ArgumentHelp("The container to read, at the source.", valueName: "id"))
    var sourceContainer: String
    @Option(help: ArgumentHelp("development or production, at the source.", valueName: "env"))
    var sourceEnvironment = "development"
    @Option(help: ArgumentHelp("The container to write (default: --source-container); it must exist.", valueName: "id"))
    var container: String?
    @Option(help: ArgumentHelp("development or production to write (default: --source-environment).", valueName: "env"))
    var environment: String?
    @Option(help: ArgumentHelp("The source's ID of the server-to-server key.", valueName: "id"))
    var keyId: String
    @Option(help: ArgumentHelp("The key's ECDSA P-256 private key (PEM).", valueName: "file"))
    var keyFile: String
    @Option(help: ArgumentHelp("A schema file (.ckdb, as `cktool export-schema` or `stratus schema export` writes), imported first; its record types are the ones copied.", valueName: "file"))
    var schema: String?
    @Option(help: ArgumentHelp("A record type to copy (repeat for several); needed without --schema, which lists them.", valueName: "type"))
    var recordType: [String] = []
    @Option(help: ArgumentHelp("The source container's API token, for the requests made with --web-auth-token.", valueName: "token"))
    var apiToken: String?
    @Option(help: ArgumentHelp("A user's web auth token at the source: their private database is copied too (repeat for several users).", valueName: "token"))
    var webAuthToken: [String] = []
    @Option(help: ArgumentHelp("A file of web auth tokens, one a line, read as --web-auth-token each.", valueName: "file"))
    var webAuthTokenFile: String?
    @Option(
        help: ArgumentHelp("CSV lines 'source userRecordName,email[,target userRecordName]': the target account of each source user (default: the account with the user's email).", valueName: "file"))
    var userMap: String?
    @Option(help: ArgumentHelp("The checkpoint file (default: import-checkpoints/ in the data folder, named for source and target).", valueName: "file"))
    var checkpoint: String?
    @Option(help: ArgumentHelp("At most this many requests a second to the source (default: as fast as it answers).", valueName: "n"))
    var maxRequestsPerSecond: Double?
    @Option(help: ArgumentHelp("text (a progress line on stderr, the report on stdout) or json (JSON lines on stdout) (env STRATUS_LOG_FORMAT; default text).", valueName: "format"))
    var logFormat: String?
    @Flag(help: "Read the source and report what would be copied; write nothing.")
    var dryRun = false
    @OptionGroup var data: DataOption
    /// Only for where blobs are kept (the data folder, or S3 from the environment).
    @OptionGroup(visibility: .hidden) var assets: AssetOptions

    var format: String { logFormat ?? ProcessInfo.processInfo.environment["STRATUS_LOG_FORMAT"] ?? "text" }

    func validate() throws {
        guard format == "text" || format == "json" else { throw ValidationError("--log-format is '\(format)'; use text or json") }
        if let rate = maxRequestsPerSecond, !(rate > 0) { throw ValidationError("--max-requests-per-second must be more than 0") }
        if schema == nil && recordType.isEmpty && webAuthToken.isEmpty && webAuthTokenFile == nil {
            throw ValidationError("name what to copy: --schema FILE.ckdb (its record types), or --record-type TYPE for each type")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let sourceEnvironment = try parseEnvironment(self.sourceEnvironment)
            let targetEnvironment = try environment.map(parseEnvironment) ?? sourceEnvironment
            let targetContainer = container ?? sourceContainer
            let schemaText = try schema.map(Self.readSchema)
            let parsed = try schemaText.map { text in try SchemaLanguage.parse(text) }
            let types = recordType.isEmpty ? (parsed?.schema.recordTypes.keys.sorted() ?? []) : recordType
            let signer = try ServerKeySigner(keyID: keyId, keyFile: keyFile)
            let client = SourceClient(
                baseURL: sourceUrl, container: sourceContainer, environment: sourceEnvironment.rawValue, signer: signer,
                pacer: RequestPacer(perSecond: maxRequestsPerSecond))
            // Bad credentials or an unknown container fail here, before anything is written.
            _ = try await client.post(database: "public", "records/lookup", ["records": [["recordName": "stratus-import-probe"]]])
            var users = try UserMap(file: userMap)
            let sourceUsers = try await identifyUsers(client)
            let progress = ImportProgress(json: format == "json")
            let identity = "\(sourceUrl) \(sourceContainer) \(sourceEnvironment.rawValue) -> \(targetContainer) \(targetEnvironment.rawValue)"
            let checkpointPath = checkpoint ?? data.folder.file("import-checkpoints/\(Self.fileName(identity)).json")
            var state = ImportCheckpoint.load(path: checkpointPath, identity: identity)
            if state.resumes, !dryRun { Console.error("import: resuming from \(checkpointPath)") }
            let store = StoreKey(container: targetContainer, environment: targetEnvironment, scope: .public, owner: "")
            if dryRun {
                let run = PublicDatabaseImport(client: client, engine: nil, store: store, copier: nil, recordTypes: types, progress: progress)
                try await run.run(checkpoint: &state)
                for (user, name, _) in sourceUsers {
                    let copy = PrivateDatabaseImport(
                        client: client, user: user, sourceName: name, targetName: name, engine: nil, container: targetContainer, environment: targetEnvironment,
                        copier: nil, users: users, progress: progress, recordTypes: types)
                    try await copy.run(checkpoint: &state)
                }
                progress.finish(dryRun: true, assetFiles: progress.assetsToCopy.files, assetBytes: progress.assetsToCopy.bytes, checkpoint: checkpointPath)
                return
            }
            let blobs = try assets.configuration(data.folder)
            try await withEngine(data) { engine in
                try await engine.requireContainer(targetContainer)
                var targets: [String] = []
                for (_, name, email) in sourceUsers {
                    targets.append(try await users.target(for: name, email: email, container: targetContainer, engine: engine))
                }
                if let schemaText {
                    let imported = try await engine.importSchema(schemaText, container: targetContainer, environment: targetEnvironment)
                    try await engine.applySecurityStatements(imported.securityStatements, container: targetContainer, environment: targetEnvironment)
                }
                let copier = AssetCopier(client: client, blobs: blobs.blobs, spoolFolder: blobs.spoolFolder.path, copied: state.assets)
                let run = PublicDatabaseImport(client: client, engine: engine, store: store, copier: copier, recordTypes: types, progress: progress)
                try await run.run(checkpoint: &state)
                for ((user, name, _), target) in zip(sourceUsers, targets) {
                    let copy = PrivateDatabaseImport(
                        client: client, user: user, sourceName: name, targetName: target, engine: engine, container: targetContainer,
                        environment: targetEnvironment, copier: copier, users: users, progress: progress, recordTypes: types)
                    try await copy.run(checkpoint: &state)
                }
                try state.save(finished: true)
                let (files, bytes) = await run.assetTotals()
                progress.finish(dryRun: false, assetFiles: files, assetBytes: bytes, checkpoint: checkpointPath)
            }
        }
    }

    /// Each --web-auth-token's user at the source (users/caller): their record name and email.
    /// An expired token stops the import here, before anything is written.
    func identifyUsers(_ client: SourceClient) async throws -> [(SourceUser, String, String?)] {
        var tokens = webAuthToken
        if let webAuthTokenFile {
            guard let data = FileManager.default.contents(atPath: webAuthTokenFile) else {
                throw ImportError("cannot read --web-auth-token-file \(webAuthTokenFile); check the path")
            }
            tokens += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard !tokens.isEmpty else { return [] }
        guard let apiToken else { throw ImportError("--web-auth-token needs --api-token: the source container's API token, which requests on behalf of a user carry") }
        var found: [(SourceUser, String, String?)] = []
        for token in tokens {
            let user = SourceUser(apiToken: apiToken, webAuthToken: token)
            let caller = try await client.post(database: "private", "users/caller", nil, as: user)
            guard let name = caller["userRecordName"]?.stringValue else { throw ImportError("the source's users/caller answered without a userRecordName") }
            found.append((user, name, caller["emailAddress"]?.stringValue))
        }
        return found
    }

    static func readSchema(_ path: String) throws -> String {
        guard let contents = FileManager.default.contents(atPath: path) else { throw ImportError("cannot read --schema \(path); check the path") }
        return String(decoding: contents, as: UTF8.self)
    }

    /// A file name for the checkpoint of one source and target.
    static func fileName(_ identity: String) -> String {
        String(identity.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.prefix(200))
    }
}

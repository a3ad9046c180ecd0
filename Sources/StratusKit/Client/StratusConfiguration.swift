import Foundation

/// Where and how the SDK reaches a Stratus server.
///
/// `CKContainer.default()` reads it from the environment: `STRATUS_URL`, `STRATUS_CONTAINER`,
/// `STRATUS_API_TOKEN`, optional `STRATUS_ENVIRONMENT` (`development` by default) and
/// `STRATUS_WEB_AUTH_TOKEN`; or from the JSON file named by `STRATUS_CONFIG`
/// (`{"url", "container", "apiToken", "environment"?, "webAuthToken"?}`).
public struct StratusConfiguration: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public var serverURL: URL
    /// The container identifier, e.g. `iCloud.com.example.App`.
    public var containerIdentifier: String
    /// `development` or `production`.
    public var environment: String
    /// The container's API token.
    public var apiToken: String
    /// The signed-in user's web auth token; the SDK follows the server's rotation of it.
    public var webAuthToken: String?
    /// How requests travel.
    public var transport: any StratusTransport
    /// How many times a `THROTTLED` / `TRY_AGAIN_LATER` answer is retried before it is returned.
    public var maximumRetries: Int
    /// The longest the SDK waits before one retry, whatever `retryAfter` the server asked for.
    public var maximumRetryDelay: TimeInterval
    /// Where fetched assets are downloaded (one file per content checksum, reused across fetches).
    /// Defaults to `StratusKitAssets` in the user's caches folder.
    public var assetCacheFolder: URL = StratusConfiguration.defaultAssetCacheFolder
    /// How many asset files upload or download at once.
    public var maximumConcurrentTransfers = 4
    /// Where each user's key for `record.encryptedValues` is kept (a file by default).
    public var encryptionKeyStore: any StratusKeyStore = StratusFileKeyStore()
    /// Where the names of fields holding encrypted values are kept (one file per container), so a
    /// new process refuses queries on them too. Defaults to `StratusKitEncryption` in application support.
    public var encryptedFieldsFolder: URL = StratusConfiguration.applicationSupportFolder("StratusKitEncryption")
    /// Where long-lived operations wait until they finish (one folder per container), so a new
    /// process can resume them. Defaults to `StratusKitOperations` in application support.
    public var longLivedOperationFolder: URL = StratusConfiguration.defaultLongLivedOperationFolder

    /// `StratusKitOperations` in the user's application support folder (the home folder if there is none).
    public static var defaultLongLivedOperationFolder: URL { applicationSupportFolder("StratusKitOperations") }

    /// `name` in the user's application support folder (the home folder if there is none).
    static func applicationSupportFolder(_ name: String) -> URL {
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser
        return support.appendingPathComponent(name)
    }

    /// `StratusKitAssets` in the user's caches folder (the temporary folder if there is none).
    public static var defaultAssetCacheFolder: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("StratusKitAssets")
    }

    public init(
        serverURL: URL, containerIdentifier: String, environment: String = "development",
        apiToken: String, webAuthToken: String? = nil, transport: any StratusTransport = URLSessionTransport(),
        maximumRetries: Int = 3, maximumRetryDelay: TimeInterval = 30
    ) {
        self.serverURL = serverURL
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.transport = transport
        self.maximumRetries = maximumRetries
        self.maximumRetryDelay = maximumRetryDelay
    }

    /// Reads the configuration from the process environment (or the `STRATUS_CONFIG` file);
    /// `nil` when neither names a server, container and token.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        containerIdentifier: String? = nil
    ) -> StratusConfiguration? {
        var values: [String: String] = [:]
        if let path = environment["STRATUS_CONFIG"], let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            for (key, value) in object { if let text = value as? String { values[key] = text } }
        }
        let url = environment["STRATUS_URL"] ?? values["url"]
        let container = containerIdentifier ?? environment["STRATUS_CONTAINER"] ?? values["container"]
        let token = environment["STRATUS_API_TOKEN"] ?? values["apiToken"]
        guard let url, let serverURL = URL(string: url), let container, let token else { return nil }
        return StratusConfiguration(
            serverURL: serverURL, containerIdentifier: container,
            environment: environment["STRATUS_ENVIRONMENT"] ?? values["environment"] ?? "development",
            apiToken: token, webAuthToken: environment["STRATUS_WEB_AUTH_TOKEN"] ?? values["webAuthToken"])
    }
}

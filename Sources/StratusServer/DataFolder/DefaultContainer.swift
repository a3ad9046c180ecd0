import Foundation
import StratusEngine

/// What the first start of an empty data folder sets up, so a new user can curl straight away:
/// a development container, its API token and a first user's web auth token, printed once.
/// (An API token alone is an anonymous caller, who may read but not create public records.)
///
/// The container is created only once the server listens, so a start that fails (port in use)
/// does not swallow the token: a `welcome.pending` marker, written when the folder is new,
/// survives until the welcome has been printed.
public struct DefaultContainer: Sendable {
    /// The container created on first start.
    public static let identifier = "iCloud.dev.stratus.default"
    /// Marker file: the welcome is still owed.
    public static let pendingMarkerName = "welcome.pending"

    public let identifier: String
    public let apiToken: String
    /// The reusable web auth token of the user `developer`, created with the container.
    public let webAuthToken: String

    /// Call before opening the database: when the folder is new, records that a welcome is owed.
    /// Returns whether one is owed (now or from an earlier start that never listened).
    public static func prepare(in folder: DataFolder) throws -> Bool {
        let marker = folder.file(pendingMarkerName)
        if folder.isFresh, !FileManager.default.createFile(atPath: marker, contents: Data()) {
            throw DataFolderError("cannot write \(marker); check that the data folder is writable")
        }
        return FileManager.default.fileExists(atPath: marker)
    }

    /// Creates the default container (or, if an earlier start created it but never printed its
    /// token, a new token for it) and clears the marker.
    public static func create(on engine: Engine, in folder: DataFolder) async throws -> DefaultContainer {
        let token: String
        do {
            token = try await engine.createContainer(identifier)
        } catch let error as CloudKitError where error.code == .exists {
            token = try await engine.createAPIToken(container: identifier)
        }
        let user = try await engine.createUser(name: "developer", container: identifier)
        try? FileManager.default.removeItem(atPath: folder.file(pendingMarkerName))
        return DefaultContainer(identifier: identifier, apiToken: token, webAuthToken: user.webAuthToken)
    }

    /// Lines to print for the user once the server listens at `baseURL`.
    public func welcomeLines(baseURL: String) -> [String] {
        let escaped = webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? webAuthToken
        let endpoint = "\(baseURL)/database/1/\(identifier)/development/public/records/modify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(escaped)"
        let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"hello"}}}}]}"#
        return [
            "created container \(identifier)",
            "API token: \(apiToken)",
            "web auth token (user developer): \(webAuthToken)",
            "try: curl -s -X POST '\(endpoint)' -d '\(body)'",
        ]
    }
}

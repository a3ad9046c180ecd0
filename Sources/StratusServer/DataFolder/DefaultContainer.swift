import StratusEngine

/// What the first start of an empty data folder sets up, so a new user can curl straight away.
public struct DefaultContainer: Sendable {
    /// The container created on first start.
    public static let identifier = "iCloud.dev.stratus.default"

    public let identifier: String
    public let apiToken: String

    /// Creates the default container and its first API token.
    public static func create(on engine: Engine) async throws -> DefaultContainer {
        let token = try await engine.createContainer(identifier)
        return DefaultContainer(identifier: identifier, apiToken: token)
    }

    /// Lines to print for the user once the server listens at `baseURL`.
    public func welcomeLines(baseURL: String) -> [String] {
        let endpoint = "\(baseURL)/database/1/\(identifier)/development/public/records/modify?ckAPIToken=\(apiToken)"
        let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"hello"}}}}]}"#
        return [
            "created container \(identifier)",
            "API token: \(apiToken)",
            "try: curl -s -X POST '\(endpoint)' -d '\(body)'",
        ]
    }
}

import StratusEngine
import StratusModel

/// Which records a records-screen request looks at: the database (public, or a user's private
/// or shared database, "acting as" that user) and the zone, from the `db`, `as` and `zone` values.
struct ConsoleRecordLocation: Sendable {
    var database: DatabaseScope
    /// The user the console acts as in a private or shared database.
    var actingAs: String
    var zone: String

    init(_ console: ConsoleRequest) {
        database = DatabaseScope(rawValue: console["db"]) ?? .public
        actingAs = database == .public ? "" : console["as"]
        zone = console["zone"].isEmpty ? "_defaultZone" : console["zone"]
    }

    /// Query values that keep this location on links.
    var query: [(String, String)] { [("db", database.rawValue), ("as", actingAs), ("zone", zone)] }

    /// The request scope CKWS requests of this location get: the container's developer, or the
    /// user acted as.
    func scope(_ console: ConsoleRequest, engine: Engine) async throws -> RequestScope {
        if database != .public && actingAs.isEmpty {
            throw CloudKitError.badRequest("the \(database.rawValue) database belongs to a user: choose the user to act as")
        }
        let caller = try await engine.consoleCaller(container: console.container, actingAs: actingAs.isEmpty ? nil : actingAs)
        var scope = RequestScope(
            store: StoreKey(container: console.container, environment: console.environment, scope: database, owner: actingAs),
            caller: caller)
        scope.assetBaseURL = console.baseURL
        return scope
    }

    var zoneID: JSONValue { .object(["zoneName": .string(zone)]) }

    func recordLink(_ console: ConsoleRequest, zone: String, name: String) -> ConsoleURL {
        console.chrome.link("/console/record", [("db", database.rawValue), ("as", actingAs), ("zone", zone), ("name", name)])
    }

    /// The console address serving an asset whose download URL is `/assets/1/download/{token}/{name}`.
    static func assetLink(_ downloadURL: String) -> ConsoleURL? {
        guard let range = downloadURL.range(of: "/assets/1/download/") else { return nil }
        let token = downloadURL[range.upperBound...].split(separator: "/").first.map(String.init) ?? ""
        return token.isEmpty ? nil : ConsoleURL("/console/asset/" + ConsoleURL.encode(token))
    }

    func valueView(_ console: ConsoleRequest, images: Set<String> = []) -> FieldValueView {
        FieldValueView(
            recordLink: { zone, name in recordLink(console, zone: zone, name: name) },
            assetLink: ConsoleRecordLocation.assetLink, isImage: { images.contains($0) })
    }
}

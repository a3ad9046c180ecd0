import Hummingbird
import StratusEngine
import StratusModel

/// Zones of a database: list, create, delete, and "changes since": a zone's change feed
/// (`changes/zone`) replayed from a sync token, or from the start.
extension ConsoleScreens {
    func zones(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        // A private or shared database is shown once the user to act as is chosen.
        let needsUser = location.database != .public && location.actingAs.isEmpty
        let scope = needsUser ? nil : try await location.scope(console, engine: engine)
        var zones: [RecordZone] = []
        if let scope { zones = try await engine.zones(scope) }
        // Container, environment, database and user: the zone is the form's own field.
        let hidden = HTML.join(
            (console.chrome.scopeQuery + [("db", location.database.rawValue), ("as", location.actingAs)]).map {
                "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">"
            })
        let rows: [[HTML]] = zones.map { zone -> [HTML] in
            let name = zone.zoneID.zoneName
            let records = console.chrome.link("/console/records", [("db", location.database.rawValue), ("as", location.actingAs), ("zone", name)])
            // The public database keeps no change feed (CloudKit's rule): only private and shared zones have one.
            let changes: HTML =
                location.database == .public
                ? "<span class=\"muted\">none in the public database</span>"
                : "<a href=\"\(console.chrome.link("/console/zones", location.query.filter { $0.0 != "zone" } + [("zone", name), ("since", "start")]))\">Changes since start</a>"
            let delete: HTML =
                name == "_defaultZone"
                ? "<span class=\"muted\">default zone</span>"
                : """
                <form method="post" action="/console/zones/delete" data-confirm="Delete zone \(name) and every record in it?">
                \(console.chrome.csrfField)\(hidden)<input type="hidden" name="zone" value="\(name)">
                <button type="submit" class="danger">Delete</button></form>
                """
            return ["<a href=\"\(records)\">\(name)</a>", changes, delete]
        }
        var changes: HTML = ""
        if !console["since"].isEmpty, let scope {
            changes = try await zoneChanges(console, location: location, scope: scope)
        }
        let users = location.database == .public ? [] : try await engine.userAccounts(container: console.container)
        let userOptions = HTML.join(
            ([""] + users.map(\.user.userRecordName)).map { name -> HTML in
                "<option value=\"\(name)\"\(name == location.actingAs ? HTML(" selected") : "")>\(name.isEmpty ? "(choose a user)" : name)</option>"
            })
        let databases = HTML.join(
            DatabaseScope.allCases.map { scope -> HTML in
                "<option value=\"\(scope.rawValue)\"\(scope == location.database ? HTML(" selected") : "")>\(scope.rawValue)</option>"
            })
        return console.page(
            "Zones",
            """
            <form class="bar" method="get" action="/console/zones">
            <input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Database <select name="db" data-autosubmit>\(databases)</select></label>
            \(location.database == .public ? "" : "<label>Acting as <select name=\"as\">\(userOptions)</select></label>")
            <button type="submit">Show zones</button>
            </form>
            \(needsUser ? ConsoleLayout.empty("Choose a user to act as.", "A private or shared database belongs to one user.")
              : zones.isEmpty ? ConsoleLayout.empty("No zones.", "Create one below.") : ConsoleLayout.table(headers: ["Zone", "Change feed", ""], rows: rows, id: "zones"))
            <h2>Create a zone</h2>
            <form method="post" action="/console/zones/create" class="bar">
            \(console.chrome.csrfField)\(hidden)
            <label>Zone name <input type="text" name="zone" required pattern="[A-Za-z0-9_\\-]+"></label>
            <button type="submit">Create zone</button>
            </form>
            \(changes)
            """)
    }

    /// One page of a zone's change feed from the `since` token (`start`: from the beginning).
    func zoneChanges(_ console: ConsoleRequest, location: ConsoleRecordLocation, scope: RequestScope) async throws -> HTML {
        var request: [String: JSONValue] = ["zoneID": location.zoneID, "resultsLimit": 100]
        if console["since"] != "start" { request["syncToken"] = .string(console["since"]) }
        let answer = try await engine.recordChanges(scope, body: .object(request))
        let records = answer["records"]?.arrayValue ?? []
        let rows: [[HTML]] = records.map { record in
            let name = record["recordName"]?.stringValue ?? ""
            let deleted = record["deleted"]?.boolValue == true
            return [
                deleted ? "\(name)" : "<a href=\"\(location.recordLink(console, zone: location.zone, name: name))\">\(name)</a>",
                "\(deleted ? "deleted" : record["recordType"]?.stringValue ?? "")",
                "\(record["recordChangeTag"]?.stringValue ?? "")",
            ]
        }
        let token = answer["syncToken"]?.stringValue ?? ""
        let more = answer["moreComing"]?.boolValue == true
        let next = console.chrome.link("/console/zones", location.query + [("since", token)])
        return """
            <h2>Changes in \(location.zone)</h2>
            \(records.isEmpty ? ConsoleLayout.empty("No changes since this token.", "Changes appear here as records are saved and deleted.") : ConsoleLayout.table(headers: ["Record", "Type", "Change tag"], rows: rows, id: "changes"))
            <p>Sync token: <code id="sync-token">\(token)</code>\(more ? " (more changes follow)" : "") · <a href="\(next)">Changes since this token</a></p>
            """
    }

    func createZone(_ console: ConsoleRequest) async throws -> Response {
        try await changeZone(console, operation: .create)
    }

    func deleteZone(_ console: ConsoleRequest) async throws -> Response {
        try await changeZone(console, operation: .delete)
    }

    func changeZone(_ console: ConsoleRequest, operation: ZoneModification.Kind) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        let scope = try await location.scope(console, engine: engine)
        let results = try await engine.modifyZones(scope, ZoneModification(operations: [.init(operation, zoneName: location.zone)]))
        if case .failure(let error) = results.first { throw error }
        try await audit(console, "zone.\(operation.rawValue)", "\(location.database.rawValue) database: zone \(location.zone)")
        return ConsoleResponse.redirect(console.chrome.link("/console/zones", [("db", location.database.rawValue), ("as", location.actingAs)]))
    }
}

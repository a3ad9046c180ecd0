import Hummingbird
import StratusEngine
import StratusWire
import StratusModel

/// Saving and deleting records from the console: `records/modify` through the engine, audited.
extension ConsoleScreens {
    func saveRecord(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        let name = console["name"].trimmingCharacters(in: .whitespaces)
        let recordType = console["type"].trimmingCharacters(in: .whitespaces)
        let text = console["fields"]
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(text.isEmpty ? "{}" : text)
        } catch {
            throw CloudKitError.badRequest("the fields are not JSON (\(error.description)); write an object like {\"title\": {\"value\": \"hello\"}}")
        }
        guard case .object(let fields) = parsed else {
            throw CloudKitError.badRequest("the fields must be a JSON object like {\"title\": {\"value\": \"hello\"}}")
        }
        let tag = console["tag"]
        let force = console["force"] == "1"
        let creating = tag.isEmpty && !force
        guard !recordType.isEmpty else { throw CloudKitError.badRequest("a record needs a record type") }
        var record: [String: JSONValue] = ["recordType": .string(recordType), "fields": .object(fields)]
        if !name.isEmpty { record["recordName"] = .string(name) }
        if !tag.isEmpty && !force { record["recordChangeTag"] = .string(tag) }
        let operationType = creating ? "create" : force ? "forceUpdate" : "update"
        let scope = try await location.scope(console, engine: engine)
        let answer = try await engine.modifyRecords(
            scope,
            body: .object([
                "operations": .array([.object(["operationType": .string(operationType), "record": .object(record)])]),
                "zoneID": location.zoneID,
            ]))
        guard let result = answer["records"]?[0] else { throw CloudKitError(.internalError, "the server answered without the record") }
        if result["serverErrorCode"]?.stringValue == ServerErrorCode.conflict.rawValue, let server = result["serverRecord"] {
            return conflict(console, location: location, name: name, recordType: recordType, mine: fields, server: server)
        }
        if let code = result["serverErrorCode"]?.stringValue {
            throw CloudKitError(ServerErrorCode(rawValue: code) ?? .badRequest, result["reason"]?.stringValue ?? "the record was not saved")
        }
        let saved = result["recordName"]?.stringValue ?? name
        try await audit(
            console, creating ? "record.create" : "record.update",
            "\(location.database.rawValue) database, zone \(location.zone): \(recordType) \(saved)\(force ? " (over a newer server version)" : "")")
        return ConsoleResponse.redirect(location.recordLink(console, zone: location.zone, name: saved))
    }

    /// A save that met a newer server version: both versions, and the operator's choice.
    func conflict(
        _ console: ConsoleRequest, location: ConsoleRecordLocation, name: String, recordType: String,
        mine: [String: JSONValue], server: JSONValue
    ) -> Response {
        let serverFields = server["fields"]?.objectValue ?? [:]
        let mineText = ConsoleJSON.pretty(.object(mine))
        return console.page(
            "Changed on the server",
            """
            \(ConsoleLayout.notice("Someone saved \(name) after you opened it. Compare the two versions and choose which to keep.", kind: "error"))
            <div class="columns" id="conflict">
            <section><h2>On the server now (\(stamp(server["modified"])))</h2><pre id="server-version">\(editableFields(serverFields))</pre>
            <p><a id="keep-server" href="\(location.recordLink(console, zone: location.zone, name: name))">Keep the server's version</a></p></section>
            <section><h2>Yours</h2><pre id="my-version">\(mineText)</pre>
            <form method="post" action="/console/record/save">
            \(console.chrome.csrfField)\(hiddenLocation(console, location: location))
            <input type="hidden" name="type" value="\(recordType)">
            <input type="hidden" name="name" value="\(name)">
            <input type="hidden" name="force" value="1">
            <input type="hidden" name="fields" value="\(mineText)">
            <button type="submit" id="save-mine">Save mine over it</button>
            </form></section>
            </div>
            """, status: .conflict)
    }

    func deleteRecord(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        let name = console["name"]
        let scope = try await location.scope(console, engine: engine)
        let cascade = try await engine.deleteCascadeCount(scope.store, zoneName: location.zone, recordName: name)
        let answer = try await engine.modifyRecords(
            scope,
            body: .object([
                "operations": .array([.object(["operationType": "forceDelete", "record": .object(["recordName": .string(name)])])]),
                "zoneID": location.zoneID,
            ]))
        if let result = answer["records"]?[0], let code = result["serverErrorCode"]?.stringValue {
            throw CloudKitError(ServerErrorCode(rawValue: code) ?? .badRequest, result["reason"]?.stringValue ?? "the record was not deleted")
        }
        try await audit(console, "record.delete", "\(location.database.rawValue) database, zone \(location.zone): \(name) and \(cascade) record(s) through DELETE_SELF")
        return console.page(
            "Deleted",
            """
            \(ConsoleLayout.notice("Deleted \(name)\(cascade > 0 ? " and \(cascade) record(s) that referenced it" : "").", kind: "ok"))
            <p><a href="\(console.chrome.link("/console/records", location.query))">Back to records</a></p>
            """)
    }
}

import Foundation
import Hummingbird
import StratusEngine
import StratusWire
import StratusModel

/// One record: every field and system field, references as links, assets with download and
/// image preview; edit (with the server's newer version shown on a conflict) and delete (with
/// the count of records its DELETE_SELF references take along).
extension ConsoleScreens {
    func record(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        let name = console["name"]
        let record = try await lookup(console, location: location, name: name)
        let fields = record["fields"]?.objectValue ?? [:]
        let images = try await imageAssets(in: fields)
        let view = location.valueView(console, images: images)
        let fieldRows = HTML.join(
            fields.keys.sorted().map { key in
                "<dt>\(key) <span class=\"badge\">\(fields[key]?["type"]?.stringValue ?? "")</span></dt><dd>\(view.render(fields[key] ?? .null))</dd>"
            })
        let system: [(String, String)] = [
            ("recordName", name), ("recordType", record["recordType"]?.stringValue ?? ""), ("zone", location.zone),
            ("recordChangeTag", record["recordChangeTag"]?.stringValue ?? ""),
            ("created", stamp(record["created"])), ("modified", stamp(record["modified"])),
        ]
        let systemRows = HTML.join(system.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" })
        let cascade = try await engine.deleteCascadeCount(try await location.scope(console, engine: engine).store, zoneName: location.zone, recordName: name)
        let warning =
            cascade == 0
            ? "Delete \(name)? No other record is deleted with it."
            : "Delete \(name)? \(cascade) other record\(cascade == 1 ? "" : "s") that reference it with DELETE_SELF will be deleted with it."
        let hidden = hiddenLocation(console, location: location)
        let assetFields = fields.keys.sorted().filter { (fields[$0]?["type"]?.stringValue ?? "").hasPrefix("ASSET") }
        let upload = assetUploadForm(
            console, hidden: hidden, recordType: record["recordType"]?.stringValue ?? "", name: name,
            changeTag: record["recordChangeTag"]?.stringValue ?? "", assetFields: assetFields)
        return console.page(
            "Record \(name)",
            """
            <p><a href="\(console.chrome.link("/console/records", location.query + [("type", record["recordType"]?.stringValue ?? "")]))">← \(record["recordType"]?.stringValue ?? "") records</a></p>
            <h2>Fields</h2>
            \(fields.isEmpty ? ConsoleLayout.empty("This record has no fields.", "Add some with Edit below.") : "<dl class=\"fields\" id=\"fields\">\(fieldRows)</dl>")
            <h2>System fields</h2>
            <dl class="fields" id="system-fields">\(systemRows)</dl>
            <h2>Edit</h2>
            \(editForm(console, hidden: hidden, recordType: record["recordType"]?.stringValue ?? "", name: name,
                       changeTag: record["recordChangeTag"]?.stringValue ?? "", fields: editableFields(fields)))
            \(upload)
            <h2>Delete</h2>
            <p id="cascade-warning">\(warning)</p>
            <form method="post" action="/console/record/delete" data-confirm="\(warning)">
            \(console.chrome.csrfField)\(hidden)
            <input type="hidden" name="name" value="\(name)">
            <button type="submit" class="danger" id="delete-record">Delete record</button>
            </form>
            """)
    }

    func newRecord(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        return console.page(
            "New record",
            """
            <p>Fields as CKWS JSON: <code>{"title": {"value": "hello"}, "rating": {"value": 4, "type": "INT64"}}</code>.</p>
            \(editForm(console, hidden: hiddenLocation(console, location: location), recordType: console["type"], name: "", changeTag: "", fields: "{\n}"))
            """)
    }

    /// Lookup through the engine, as `records/lookup` does.
    func lookup(_ console: ConsoleRequest, location: ConsoleRecordLocation, name: String) async throws -> JSONValue {
        guard !name.isEmpty else { throw CloudKitError.badRequest("name a record (the name query parameter)") }
        let scope = try await location.scope(console, engine: engine)
        let answer = try await engine.lookupRecords(scope, body: .object(["records": .array([.object(["recordName": .string(name)])]), "zoneID": location.zoneID]))
        guard let record = answer["records"]?[0] else { throw CloudKitError(.notFound, "record \(name) was not found") }
        if let code = record["serverErrorCode"]?.stringValue {
            throw CloudKitError(ServerErrorCode(rawValue: code) ?? .notFound, record["reason"]?.stringValue ?? "record \(name) could not be read")
        }
        return record
    }

    func hiddenLocation(_ console: ConsoleRequest, location: ConsoleRecordLocation) -> HTML {
        let pairs = console.chrome.scopeQuery + location.query
        return HTML.join(pairs.map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">" })
    }

    func editForm(_ console: ConsoleRequest, hidden: HTML, recordType: String, name: String, changeTag: String, fields: String) -> HTML {
        let identity: HTML =
            name.isEmpty
            ? """
            <label>Record type <input type="text" name="type" required value="\(recordType)"></label>
            <label>Record name <input type="text" name="name" placeholder="leave empty for a new UUID"></label>
            """
            : """
            <input type="hidden" name="type" value="\(recordType)">
            <input type="hidden" name="name" value="\(name)">
            <input type="hidden" name="tag" value="\(changeTag)">
            """
        return """
            <form method="post" action="/console/record/save" class="stack" id="edit-form">
            \(console.chrome.csrfField)\(hidden)\(identity)
            <label>Fields (JSON) <textarea name="fields" id="fields-json" spellcheck="false">\(fields)</textarea></label>
            <button type="submit" id="save-record">\(name.isEmpty ? "Create record" : "Save changes")</button>
            </form>
            """
    }

    /// The fields as editable JSON: assets are left out (they keep their value when not sent).
    func editableFields(_ fields: [String: JSONValue]) -> String {
        let kept = fields.filter { !($0.value["type"]?.stringValue ?? "").hasPrefix("ASSET") }
        return ConsoleJSON.pretty(.object(kept))
    }

    func stamp(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        let time = value["timestamp"]?.int64Value.map(ConsoleFormat.time) ?? ""
        return "\(time) UTC by \(value["userRecordName"]?.stringValue ?? "?")"
    }

    /// Download URLs of the assets among `fields` whose bytes are an image the console previews.
    func imageAssets(in fields: [String: JSONValue]) async throws -> Set<String> {
        guard let assets else { return [] }
        var images: Set<String> = []
        for field in fields.values where (field["type"]?.stringValue ?? "").hasPrefix("ASSET") {
            let values = field["value"]?.arrayValue ?? [field["value"] ?? .null]
            for value in values {
                guard let url = value["downloadURL"]?.stringValue, let link = ConsoleRecordLocation.assetLink(url),
                    let blob = try? engine.openDownloadToken(ConsoleURL.decodeLastComponent(link.path)),
                    let reader = try await assets.blobs.open(checksum: blob.checksum, range: 0..<min(blob.size, 16))
                else { continue }
                var head: [UInt8] = []
                while head.count < 16, let chunk = try await reader.next() { head += chunk }
                await reader.close()
                if ImageSniffer.contentType(head) != nil { images.insert(url) }
            }
        }
        return images
    }
}

/// JSON for the edit box: indented, keys sorted.
enum ConsoleJSON {
    static func pretty(_ value: JSONValue) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(value.serialized()), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else {
            return value.serializedString
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ConsoleURL {
    /// The last path component, percent-decoded (an asset token in `/console/asset/{token}`).
    static func decodeLastComponent(_ path: String) -> String {
        QueryCredentials.decode(Substring(path.split(separator: "/").last ?? ""))
    }
}

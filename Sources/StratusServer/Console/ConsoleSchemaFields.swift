import Hummingbird
import StratusEngine
import StratusModel

/// Schema: adding a record type or a field by hand, before any record of it is saved. The form
/// becomes one line of the schema language, applied to development the way an uploaded `.ckdb`
/// file is (additively, through `importSchema`), so the same rules and errors apply. Names are
/// checked with `NameRules` first, so nothing typed can end the schema line it is written into.
extension ConsoleScreens {
    static let fieldTypes = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "REFERENCE", "ASSET", "LOCATION"]
    /// Every field type, plus a list of each.
    static let fieldTypeChoices = fieldTypes + fieldTypes.map { "LIST<\($0)>" }

    func addFieldForm(_ console: ConsoleRequest, types: [String]) -> HTML {
        """
        <h2>Add a field</h2>
        <form method="post" action="/console/schema/field" class="bar" id="add-field">
        \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="development">
        <label>Record type <input name="type" list="record-types" required placeholder="a new or existing type"></label>
        <datalist id="record-types">\(HTML.join(types.map { "<option value=\"\($0)\"></option>" }))</datalist>
        <label>Field <input name="field" required></label>
        <label>Type <select name="fieldType">\(HTML.join(Self.fieldTypeChoices.map { "<option>\($0)</option>" }))</select></label>
        <button type="submit">Add field</button>
        </form>
        """
    }

    func addField(_ console: ConsoleRequest) async throws -> Response {
        guard console.environment == .development else {
            throw CloudKitError.badRequest("fields are added in development, then deployed to production")
        }
        let type = console["type"], field = console["field"], fieldType = console["fieldType"]
        for (name, what) in [(type, "record type"), (field, "field name")] where !NameRules.isIdentifier(name) {
            throw CloudKitError.badRequest("the \(what) '\(name)' must start with a letter and hold only letters, digits and underscores")
        }
        guard Self.fieldTypeChoices.contains(fieldType) else {
            throw CloudKitError.badRequest("the field type '\(fieldType)' is not one of \(Self.fieldTypeChoices.joined(separator: ", "))")
        }
        let current = try await engine.currentSchema(container: console.container, environment: .development)
        if let existing = current.recordTypes[type]?.fields[field] {
            throw CloudKitError.badRequest("\(type).\(field) already exists as \(existing.type.description); a field's type cannot change")
        }
        _ = try await engine.importSchema(
            "DEFINE SCHEMA\n  RECORD TYPE \(type) (\n    \"\(field)\" \(fieldType)\n  );\n",
            container: console.container, environment: .development)
        try await audit(console, "schema.field.add", "\(type).\(field) \(fieldType) in development")
        return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
    }
}

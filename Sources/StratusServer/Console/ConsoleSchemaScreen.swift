import HTTPTypes
import Hummingbird
import StratusEngine
import StratusModel

/// Schema: record types with their fields and indexes (add index options, add fields in
/// ConsoleSchemaFields.swift), security grants per
/// record type, the schema as a `.ckdb` file (view, download, upload with a diff first), and
/// deploy development → production with exactly what it adds shown first.
extension ConsoleScreens {
    static let indexOptions: [(String, IndexFlags)] = [("QUERYABLE", .queryable), ("SORTABLE", .sortable), ("SEARCHABLE", .searchable)]

    func schema(_ console: ConsoleRequest) async throws -> Response {
        let schema = try await engine.currentSchema(container: console.container, environment: console.environment)
        let types = schema.recordTypes.keys.sorted()
        let development = console.environment == .development
        var sections: [HTML] = []
        for name in types {
            guard let type = schema.recordTypes[name] else { continue }
            let rows: [[HTML]] = type.fields.keys.sorted().map { fieldName in
                let field = type.fields[fieldName]
                let indexes = field?.indexes.names ?? []
                let cell: HTML =
                    indexes.isEmpty
                    ? "—"
                    : HTML.join(
                        indexes.map { index in
                            development ? removeIndexButton(console, type: name, field: fieldName, index: index) : "\(index)"
                        }, separator: " ")
                return ["<code>\(fieldName)</code>", "\(field?.type.description ?? "")", cell]
            }
            let addIndex: HTML =
                !development || type.fields.isEmpty
                ? ""
                : """
                <form method="post" action="/console/schema/index" class="bar">
                \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
                <input type="hidden" name="type" value="\(name)">
                <label>Field <select name="field">\(HTML.join(type.fields.keys.sorted().map { "<option>\($0)</option>" }))</select></label>
                <label>Index <select name="index">\(HTML.join(Self.indexOptions.map { "<option>\($0.0)</option>" }))</select></label>
                <button type="submit">Add index</button>
                </form>
                """
            sections.append(
                """
                <h2 id="type-\(name)">\(name)</h2>
                \(type.fields.isEmpty ? ConsoleLayout.empty("No fields.", "Fields appear when a record of this type is saved with them.") : ConsoleLayout.table(headers: ["Field", "Type", "Indexes"], rows: rows))
                \(addIndex)
                """)
        }
        let security = try await engine.securityRoles(container: console.container, environment: console.environment)
        let grantRows: [[HTML]] = security.grants.sorted { ($0.recordType, $0.role) < ($1.recordType, $1.role) }.map { grant in
            ["\(grant.recordType)", "\(grant.role)", "\(grant.permissions.sorted().map(\.rawValue).joined(separator: ", "))"]
        }
        let roles = (Array(BuiltInRole.all) + security.roles).sorted()
        let grantForm: HTML =
            types.isEmpty
            ? ""
            : """
            <form method="post" action="/console/schema/grant" class="bar">
            \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Record type <select name="type">\(HTML.join(types.map { "<option>\($0)</option>" }))</select></label>
            <label>Role <select name="role">\(HTML.join(roles.map { "<option>\($0)</option>" }))</select></label>
            \(HTML.join(RecordPermission.allCases.map { "<label><input type=\"checkbox\" name=\"perm\" value=\"\($0.rawValue)\"> \($0.rawValue)</label>" }))
            <button type="submit">Grant</button>
            </form>
            """
        let ckdb = try await engine.exportSchema(container: console.container, environment: console.environment)
        let deploy = try await deployPanel(console)
        let reset = try await resetPanel(console)
        return console.page(
            "Schema",
            """
            <p class="muted">\(console.environment.rawValue) schema of \(console.container). Types and fields appear when records are saved in development.</p>
            \(types.isEmpty ? ConsoleLayout.empty("No record types yet.", "Save a record (see Welcome): its type and fields are created in development. Or add one below.") : HTML.join(sections))
            \(development ? addFieldForm(console, types: types) : "")
            <h2>Security roles</h2>
            \(grantRows.isEmpty ? ConsoleLayout.empty("No grants set.", "Every type has CloudKit's defaults: _world read, _icloud create, _creator read and write.") : ConsoleLayout.table(headers: ["Record type", "Role", "Permissions"], rows: grantRows, id: "grants"))
            \(grantForm)
            <h2>Schema file (.ckdb)</h2>
            <p><a href="\(console.chrome.link("/console/schema/ckdb"))" id="download-ckdb">Download</a></p>
            <pre id="ckdb">\(ckdb)</pre>
            \(development ? uploadForm(console) : "")
            \(deploy)
            \(reset)
            """)
    }

    func uploadForm(_ console: ConsoleRequest) -> HTML {
        """
        <form method="post" action="/console/schema/upload" class="stack">
        \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
        <label>Upload a schema file (paste its text): the changes are shown before anything is applied
        <textarea name="ckdb" id="upload-ckdb" spellcheck="false"></textarea></label>
        <button type="submit">Show changes</button>
        </form>
        """
    }

    func deployPanel(_ console: ConsoleRequest) async throws -> HTML {
        let development = try await engine.currentSchema(container: console.container, environment: .development)
        let production = try await engine.currentSchema(container: console.container, environment: .production)
        let diff = SchemaDiff(adding: development, onto: production)
        guard !diff.lines.isEmpty else {
            return "<h2>Deploy to production</h2><p id=\"deploy-diff\" class=\"muted\">Production already has everything development has.</p>"
        }
        return """
            <h2>Deploy to production</h2>
            <p>Deploying adds this to the production schema (records are never copied):</p>
            <pre id="deploy-diff">\(diff.lines.joined(separator: "\n"))</pre>
            <form method="post" action="/console/schema/deploy" data-confirm="Deploy these changes to production? Production schema changes cannot be removed.">
            \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <button type="submit" id="deploy">Deploy to production</button>
            </form>
            """
    }

    func addIndex(_ console: ConsoleRequest) async throws -> Response {
        guard console.environment == .development else {
            throw CloudKitError.badRequest("indexes are added in development, then deployed to production")
        }
        guard let flags = Self.indexOptions.first(where: { $0.0 == console["index"] })?.1 else {
            throw CloudKitError.badRequest("index must be QUERYABLE, SORTABLE or SEARCHABLE")
        }
        try await engine.addIndexes(flags, field: console["field"], recordType: console["type"], container: console.container, environment: .development)
        try await audit(console, "schema.index.add", "\(console["type"]).\(console["field"]) \(console["index"]) in development")
        return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
    }

    /// An index option with a button that removes it (development only).
    func removeIndexButton(_ console: ConsoleRequest, type: String, field: String, index: String) -> HTML {
        """
        <form method="post" action="/console/schema/index/remove" class="inline" data-confirm="Remove \(index) from \(type).\(field) in development? Production keeps what was deployed; development adds it back when a query needs it.">
        \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
        <input type="hidden" name="type" value="\(type)"><input type="hidden" name="field" value="\(field)"><input type="hidden" name="index" value="\(index)">
        <span class="badge">\(index) <button type="submit" class="link" title="Remove \(index)" aria-label="Remove \(index) from \(field)">×</button></span>
        </form>
        """
    }

    func removeIndex(_ console: ConsoleRequest) async throws -> Response {
        guard let flags = Self.indexOptions.first(where: { $0.0 == console["index"] })?.1 else {
            throw CloudKitError.badRequest("index must be QUERYABLE, SORTABLE or SEARCHABLE")
        }
        try await engine.removeIndexes(
            flags, field: console["field"], recordType: console["type"], container: console.container,
            environment: console.environment)
        try await audit(console, "schema.index.remove", "\(console["type"]).\(console["field"]) \(console["index"]) in development")
        return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
    }

    func grant(_ console: ConsoleRequest) async throws -> Response {
        let permissions = Set(console.all("perm").compactMap(RecordPermission.init(rawValue:)))
        try await engine.grant(permissions, on: console["type"], to: console["role"], container: console.container, environment: console.environment)
        try await audit(console, "schema.grant", "\(console["role"]) on \(console["type"]) in \(console.environment.rawValue): \(permissions.sorted().map(\.rawValue).joined(separator: ", "))")
        return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
    }

    func downloadSchema(_ console: ConsoleRequest) async throws -> Response {
        let text = try await engine.exportSchema(container: console.container, environment: console.environment)
        var headers = ConsoleResponse.securityHeaders()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"schema-\(console.environment.rawValue).ckdb\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// An uploaded schema file: first its diff (`apply` absent), then applied (`apply=1`).
    func uploadSchema(_ console: ConsoleRequest) async throws -> Response {
        guard console.environment == .development else { throw CloudKitError.badRequest("schema files are uploaded to development, then deployed") }
        let text = console["ckdb"]
        let parsed = try SchemaLanguage.parse(text)
        if console["apply"] == "1" {
            let applied = try await engine.importSchema(text, container: console.container, environment: .development)
            _ = try await engine.applySecurityStatements(applied.securityStatements, container: console.container, environment: .development)
            try await audit(console, "schema.upload", "a schema file applied to development")
            return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
        }
        let current = try await engine.currentSchema(container: console.container, environment: .development)
        var diff = SchemaDiff(adding: parsed.schema, onto: current)
        diff.lines += parsed.securityStatements.map { "+ \($0)" }
        return console.page(
            "Schema changes",
            """
            <p>Applying this file to development adds:</p>
            \(diff.lines.isEmpty ? "<p id=\"upload-diff\" class=\"muted\">Nothing: development already has all of it.</p>" : "<pre id=\"upload-diff\">\(diff.lines.joined(separator: "\n"))</pre>")
            <form method="post" action="/console/schema/upload">
            \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="development">
            <input type="hidden" name="ckdb" value="\(text)"><input type="hidden" name="apply" value="1">
            <button type="submit" id="apply-upload">Apply to development</button> <a href="\(console.chrome.link("/console/schema"))">Cancel</a>
            </form>
            """)
    }

    func deploy(_ console: ConsoleRequest) async throws -> Response {
        let development = try await engine.currentSchema(container: console.container, environment: .development)
        let production = try await engine.currentSchema(container: console.container, environment: .production)
        let diff = SchemaDiff(adding: development, onto: production)
        try await engine.deploySchema(container: console.container)
        try await audit(console, "schema.deploy", diff.lines.isEmpty ? "nothing new" : diff.lines.joined(separator: "; "))
        return ConsoleResponse.redirect(ConsoleURL("/console/schema", [("c", console.container), ("env", "production")]))
    }
}

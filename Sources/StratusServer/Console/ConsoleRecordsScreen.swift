import Hummingbird
import StratusEngine
import StratusWire
import StratusModel

/// Records: choose the database, zone and record type, filter, sort, pick columns, page through
/// continuation markers. Runs `records/query` through the engine like any CKWS client.
extension ConsoleScreens {
    func records(_ console: ConsoleRequest) async throws -> Response {
        let location = ConsoleRecordLocation(console)
        let schema = try await engine.currentSchema(container: console.container, environment: console.environment)
        let types = schema.recordTypes.keys.filter { $0 != CloudKitSystemType.users }.sorted()
        let query = ConsoleRecordQuery(console, defaultType: types.first ?? "")
        let users = location.database == .public ? [] : try await engine.userAccounts(container: console.container)
        let form = recordsForm(console, location: location, query: query, types: types, schema: schema.recordTypes[query.recordType], users: users)
        guard !query.recordType.isEmpty else {
            return console.page(
                "Records",
                form
                    + ConsoleLayout.empty(
                        "No record types yet in \(console.environment.rawValue).",
                        "Save a record from your app or with curl (see <a href=\"\(console.chrome.link("/console"))\">Welcome</a>): its type appears here."))
        }
        if location.database != .public && location.actingAs.isEmpty {
            return console.page(
                "Records",
                form
                    + ConsoleLayout.empty(
                        "Choose a user to act as.",
                        "A private or shared database belongs to one user: pick them above to see it as they do."))
        }
        let body = query.body(zoneID: location.zoneID, schema: schema.recordTypes[query.recordType])
        let scope = try await location.scope(console, engine: engine)
        let answer = try await engine.queryRecords(scope, body: body)
        let records = answer["records"]?.arrayValue ?? []
        let view = location.valueView(console)
        let columns =
            query.desiredKeys.isEmpty
            ? Array((schema.recordTypes[query.recordType]?.fields.keys.sorted() ?? []).prefix(6)) : query.desiredKeys
        let rows: [[HTML]] = records.map { record in
            let name = record["recordName"]?.stringValue ?? ""
            let link = location.recordLink(console, zone: location.zone, name: name)
            var cells: [HTML] = ["<a class=\"record-link\" href=\"\(link)\">\(name)</a>"]
            for column in columns {
                cells.append(record["fields"]?[column].map(view.render) ?? "")
            }
            cells.append("<time>\(record["modified"]?["timestamp"]?.int64Value.map(ConsoleFormat.time) ?? "")</time>")
            return cells
        }
        let table =
            records.isEmpty
            ? ConsoleLayout.empty(
                "No \(query.recordType) records match.",
                query.filters.isEmpty
                    ? "Create one with “New record”, or from your app."
                    : "Remove a filter, or check its value and comparator.")
            : ConsoleLayout.table(headers: ["Record name"] + columns + ["Modified (UTC)"], rows: rows, id: "records")
        var pager: [HTML] = []
        if !query.marker.isEmpty {
            pager.append("<a href=\"\(console.chrome.link("/console/records", location.query + query.query))\">First page</a>")
        }
        if let next = answer["continuationMarker"]?.stringValue {
            pager.append("<a id=\"next-page\" href=\"\(console.chrome.link("/console/records", location.query + query.query + [("marker", next)]))\">Next page</a>")
        }
        let newLink = console.chrome.link("/console/record/new", location.query + [("type", query.recordType)])
        let preview = previewPanel(console, location: location, query: query, body: body)
        return console.page(
            "Records",
            """
            \(form)
            <p><a href="\(newLink)" id="new-record">New \(query.recordType) record</a> · <span class="muted">\(records.count) shown</span></p>
            \(table)
            <div class="pager">\(pager)</div>
            \(preview)
            """)
    }

    func recordsForm(
        _ console: ConsoleRequest, location: ConsoleRecordLocation, query: ConsoleRecordQuery, types: [String],
        schema: RecordTypeSchema?, users: [UserAccount]
    ) -> HTML {
        func options(_ values: [String], selected: String, labels: [String]? = nil) -> HTML {
            HTML.join(
                values.indices.map { index -> HTML in
                    let value = values[index]
                    return "<option value=\"\(value)\"\(value == selected ? HTML(" selected") : "")>\(labels?[index] ?? value)</option>"
                })
        }
        let fields = schema?.fields.keys.sorted() ?? []
        let filters = query.filters.isEmpty ? [ConsoleRecordQuery.Filter(field: "", comparator: "EQUALS", value: "")] : query.filters
        let filterRows = HTML.join(
            filters.map { filter in
                """
                <div class="filter">
                <select name="ff" aria-label="Filter field">\(options([""] + fields, selected: filter.field, labels: ["(field)"] + fields))</select>
                <select name="fo" aria-label="Comparator">\(options(ConsoleRecordQuery.comparators, selected: filter.comparator))</select>
                <input type="text" name="fv" aria-label="Value" value="\(filter.value)" placeholder="value">
                </div>
                """
            })
        let userPicker: HTML =
            location.database == .public
            ? ""
            : """
            <label>Acting as <select name="as">\(options([""] + users.map(\.user.userRecordName), selected: location.actingAs,
                                                           labels: ["(choose a user)"] + users.map { "\($0.user.name) \($0.email)" }))</select></label>
            """
        let sorts = [""] + fields + ConsoleRecordQuery.systemSorts
        return """
            <form class="bar" method="get" action="/console/records" id="query-form">
            <input type="hidden" name="c" value="\(console.container)">
            <input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Database <select name="db" data-autosubmit>\(options(DatabaseScope.allCases.map(\.rawValue), selected: location.database.rawValue))</select></label>
            \(userPicker)
            <label>Zone <input type="text" name="zone" value="\(location.zone)"></label>
            <label>Record type <select name="type">\(options(types, selected: query.recordType))</select></label>
            <div class="filters"><span class="muted">Filters</span>\(filterRows)<button type="button" class="secondary" id="add-filter" hidden>Add filter</button></div>
            <label>Sort by <select name="sort">\(options(sorts, selected: query.sortField, labels: ["(none)"] + Array(sorts.dropFirst())))</select></label>
            <label>Order <select name="dir">\(options(["", "desc"], selected: query.ascending ? "" : "desc", labels: ["ascending", "descending"]))</select></label>
            <label>Columns <input type="text" name="keys" value="\(query.desiredKeys.joined(separator: ","))" placeholder="all fields"></label>
            <button type="submit" id="run-query">Query records</button>
            </form>
            """
    }

    func previewPanel(_ console: ConsoleRequest, location: ConsoleRecordLocation, query: ConsoleRecordQuery, body: JSONValue) -> HTML {
        let curl = ConsoleAPIPreview.curl(
            baseURL: console.baseURL, container: console.container, environment: console.environment,
            database: location.database, body: body)
        let swift = ConsoleAPIPreview.swift(database: location.database, zone: location.zone, query: query)
        return """
            <details class="api-preview" id="api-preview">
            <summary>API preview: this query from curl and from StratusKit</summary>
            <h2>curl</h2>
            <pre id="preview-curl">\(curl)</pre>
            <h2>StratusKit</h2>
            <pre id="preview-swift">\(swift)</pre>
            </details>
            """
    }
}

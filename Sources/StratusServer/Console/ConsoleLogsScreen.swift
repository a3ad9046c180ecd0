import HTTPTypes
import Hummingbird
import StratusEngine
import StratusModel

/// Logs: the recent requests of every instance, filtered by operation, database, status or
/// error code and caller, with a live tail (console.js polls `/console/logs/tail`) and an
/// export as JSON lines.
extension ConsoleScreens {
    static let logPageSize = 200
    static let logExportLimit = 100_000

    func logs(_ console: ConsoleRequest) async throws -> Response {
        var filter = try Self.logFilter(console)
        filter.beforeID = Int64(console["before"])
        let entries = try await engine.requestLog(filter)
        let filterQuery = Self.logFilterQuery(console)
        let operations = HTML.join(
            ([""] + RequestSummary.Operation.allCases.map(\.rawValue)).map { operation in
                "<option value=\"\(operation)\"\(operation == console["op"] ? HTML(" selected") : "")>\(operation.isEmpty ? "any" : operation)</option>"
            })
        let databases = HTML.join(
            ["", "public", "private", "shared"].map { database in
                "<option value=\"\(database)\"\(database == console["db"] ? HTML(" selected") : "")>\(database.isEmpty ? "any" : database)</option>"
            })
        let newest = entries.first?.id ?? filter.beforeID.map { $0 - 1 } ?? 0
        let tail = console.chrome.link("/console/logs/tail", filterQuery + [("after", String(newest))])
        let table: HTML =
            entries.isEmpty && filter.beforeID == nil
            ? ConsoleLayout.empty(
                Self.isUnfiltered(console) ? "No requests logged yet." : "No request matches these filters.",
                "Requests to this server's API appear here within a second, from every instance on this database. Try the curl line on the <a href=\"\(console.chrome.link("/console"))\">Welcome</a> page."
            )
            : ""
        let older: HTML =
            entries.count == filter.limit
            ? "<div class=\"pager\"><a href=\"\(console.chrome.link("/console/logs", filterQuery + [("before", String(entries.last?.id ?? 0))]))\" id=\"older\">Older requests</a></div>"
            : ""
        return console.page(
            "Logs",
            """
            <form method="get" action="/console/logs" class="bar" id="log-filters">
            <input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Operation <select name="op">\(operations)</select></label>
            <label>Database <select name="db">\(databases)</select></label>
            <label>Status or error code <input type="text" name="status" value="\(console["status"])" placeholder="404, 5xx or THROTTLED"></label>
            <label>Caller <input type="text" name="caller" value="\(console["caller"])" placeholder="anonymised id"></label>
            <button type="submit">Filter</button>
            <a href="\(console.chrome.link("/console/logs/export", filterQuery))" id="export" download>Export as JSON lines</a>
            </form>
            <p class="muted"><label><input type="checkbox" id="live-tail"\(filter.beforeID == nil ? HTML(" checked") : " disabled")> Live tail</label>
            <span id="tail-status" role="status"></span> · Kept \(retentionWords); callers are anonymised ids.</p>
            \(table)
            <div class="table-wrap"\(table.description.isEmpty ? "" : HTML(" hidden"))><table id="log" data-tail="\(tail)">
            <thead><tr>\(HTML.join(["Time (UTC)", "Operation", "Database", "Container", "Caller", "Status", "Latency", "Error", "Request UUID"].map { "<th scope=\"col\">\($0)</th>" }))</tr></thead>
            <tbody id="log-rows">\(logRows(console, entries))</tbody>
            </table></div>
            \(older)
            """)
    }

    /// Rows newer than `after`, newest first, as table rows for the live tail to prepend; the
    /// newest id in a header so the next poll asks for what came after it.
    func logTail(_ console: ConsoleRequest) async throws -> Response {
        var filter = try Self.logFilter(console)
        let after = Int64(console["after"]) ?? 0
        filter.afterID = after
        let entries = try await engine.requestLog(filter)
        var response = ConsoleResponse.page(logRows(console, entries))
        response.headers[.stratusLastLogID] = String(entries.first?.id ?? after)
        return response
    }

    func exportLogs(_ console: ConsoleRequest) async throws -> Response {
        var filter = try Self.logFilter(console)
        filter.limit = Self.logExportLimit
        let entries = try await engine.requestLog(filter)
        var text = ""
        for entry in entries {
            let line: JSONValue = .object([
                "time": .string(ConsoleFormat.time(entry.atMilliseconds) + "Z"), "timestampMs": .int(entry.atMilliseconds),
                "operation": .string(entry.operation), "endpoint": .string(entry.endpoint), "container": .string(entry.container),
                "database": .string(entry.database), "environment": .string(entry.environment), "caller": .string(entry.caller),
                "status": .int(Int64(entry.status)), "latencyMs": .double(Double(entry.latencyMicroseconds) / 1000),
                "serverErrorCode": entry.errorCode.isEmpty ? .null : .string(entry.errorCode), "uuid": .string(entry.uuid),
            ])
            text += line.serializedString + "\n"
        }
        var headers = ConsoleResponse.securityHeaders()
        headers[.contentType] = "application/x-ndjson; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"stratus-requests.jsonl\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    func logRows(_ console: ConsoleRequest, _ entries: [RequestLogEntry]) -> HTML {
        HTML.join(
            entries.map { entry -> HTML in
                let caller: HTML =
                    entry.caller.isEmpty
                    ? "<span class=\"muted\">none</span>"
                    : "<a href=\"\(console.chrome.link("/console/logs", [("caller", entry.caller)]))\"><code>\(entry.caller)</code></a>"
                let failed = entry.status >= 400 ? HTML(" class=\"failed\"") : ""
                let environment: HTML = entry.environment.isEmpty ? "" : " <span class=\"badge\">\(entry.environment)</span>"
                return """
                    <tr data-id="\(entry.id)"\(failed)><td><time>\(ConsoleFormat.time(entry.atMilliseconds))</time></td><td>\(entry.operation) <span class="muted">\(entry.endpoint)</span></td>\
                    <td>\(entry.database)\(environment)</td>\
                    <td>\(entry.container)</td><td>\(caller)</td><td>\(entry.status)</td><td>\(Self.latency(entry.latencyMicroseconds))</td>\
                    <td>\(entry.errorCode.isEmpty ? "" : "<code>\(entry.errorCode)</code>")</td><td><code class="uuid">\(entry.uuid)</code></td></tr>
                    """
            })
    }

    /// The filter the form's fields ask for. The status field takes a status (`404`), a class
    /// (`5xx`) or a `serverErrorCode`.
    static func logFilter(_ console: ConsoleRequest) throws -> RequestLogFilter {
        var filter = RequestLogFilter(limit: logPageSize)
        if !console["op"].isEmpty { filter.operation = console["op"] }
        if !console["db"].isEmpty { filter.database = console["db"] }
        let caller = console["caller"].trimmingCharacters(in: .whitespaces)
        if !caller.isEmpty { filter.caller = caller }
        let status = console["status"].trimmingCharacters(in: .whitespaces)
        if status.count == 3, let code = Int(status), (100...599).contains(code) {
            filter.status = code
        } else if status.count == 3, status.lowercased().hasSuffix("xx"), let digit = Int(status.prefix(1)), (1...5).contains(digit) {
            filter.statusClass = digit
        } else if !status.isEmpty {
            guard status.allSatisfy({ $0.isLetter || $0 == "_" }) else {
                throw CloudKitError.badRequest("'\(status)' is not a status (404), a status class (5xx) or a serverErrorCode (THROTTLED)")
            }
            filter.errorCode = status.uppercased()
        }
        return filter
    }

    /// `1,000,000`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        return String(
            digits.enumerated().flatMap { index, digit in
                index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
            })
    }

    static func logFilterQuery(_ console: ConsoleRequest) -> [(String, String)] {
        ["op", "db", "status", "caller"].map { ($0, console[$0]) }
    }

    static func isUnfiltered(_ console: ConsoleRequest) -> Bool { logFilterQuery(console).allSatisfy { $0.1.isEmpty } }

    var retentionWords: String {
        "\(SVGChart.number(journalRetention.days)) days, at most \(Self.grouped(journalRetention.rows)) requests"
    }
}

extension HTTPField.Name {
    static let stratusLastLogID = HTTPField.Name("X-Stratus-Last-ID")!
}

import Foundation
import Hummingbird
import StratusEngine
import StratusModel

/// The console's screens. Each lives in its own file as an extension; this one holds the welcome
/// page and the audit log.
struct ConsoleScreens: Sendable {
    let engine: Engine
    let assets: AssetConfiguration?
    /// What the request log keeps, for the Logs screen to say.
    var journalRetention = RequestLogRetention()

    /// Writes an audit entry for a change the operator just made.
    func audit(_ console: ConsoleRequest, _ action: String, _ detail: String) async throws {
        try await engine.auditConsoleChange(operator: console.session.email, container: console.container, action: action, detail: detail)
    }

    func welcome(_ console: ConsoleRequest) async throws -> Response {
        console.page("Welcome", welcomeBody(console, secrets: nil))
    }

    /// Makes an API token and a web auth token of the user `developer` for the snippets, shown
    /// on this page once.
    func welcomeToken(_ console: ConsoleRequest) async throws -> Response {
        let container = console.container
        let apiToken = try await engine.createAPIToken(container: container)
        let developer = try await engine.userAccounts(container: container).first { $0.user.name == "developer" }
        let webAuthToken: String
        if let developer {
            webAuthToken = try await engine.startSession(container: container, userRecordName: developer.user.userRecordName, keepSignedIn: true).webAuthToken
        } else {
            webAuthToken = try await engine.createUser(name: "developer", container: container).webAuthToken
        }
        try await audit(console, "token.create", "API token \(String(secretDigest(apiToken).prefix(16))) and a web auth token of user developer, for the welcome snippets")
        return console.page("Welcome", welcomeBody(console, secrets: (apiToken, webAuthToken)))
    }

    func welcomeBody(_ console: ConsoleRequest, secrets: (apiToken: String, webAuthToken: String)?) -> HTML {
        guard !console.container.isEmpty else {
            return ConsoleLayout.empty("This server has no container yet.", "Create one with <code>stratus container create iCloud.com.example.app</code>, then reload.")
        }
        let apiToken = secrets?.apiToken ?? "YOUR_API_TOKEN"
        let webAuthToken = secrets?.webAuthToken ?? "YOUR_WEB_AUTH_TOKEN"
        let escapedUser = webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? webAuthToken
        let endpoint = "\(console.baseURL)/database/1/\(console.container)/\(console.environment.rawValue)/public/records/modify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(escapedUser)"
        let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"hello"}}}}]}"#
        let curl = "curl -s -X POST \(ShellQuote.quote(endpoint)) -d \(ShellQuote.quote(body))"
        let swift = """
            // Package.swift: .package(url: "…/stratus.git", …), then depend on "StratusKit".
            // Run with STRATUS_URL=\(console.baseURL) STRATUS_CONTAINER=\(console.container) \\
            //   STRATUS_ENVIRONMENT=\(console.environment.rawValue) STRATUS_API_TOKEN=\(apiToken) \\
            //   STRATUS_WEB_AUTH_TOKEN='\(webAuthToken)'
            import StratusKit

            let database = CKContainer.default().publicCloudDatabase
            let note = CKRecord(recordType: "Note")
            note["title"] = "hello from Swift"
            let saved = try await database.save(note)
            print("saved", saved.recordID.recordName)
            """
        let tokenPart: HTML =
            secrets == nil
            ? """
            <form method="post" action="\(console.chrome.link("/console/welcome/token"))">
            \(console.chrome.csrfField)
            <button type="submit" id="make-tokens">Fill in a new API token and a sign-in token</button>
            <span class="muted">Tokens are stored only as digests: they are shown here once, when made.</span>
            </form>
            """ : ConsoleLayout.notice("New tokens are filled in below. Copy them now: they are shown only once.", kind: "ok")
        return """
            <p>This server speaks CloudKit Web Services. Your container <strong>\(console.container)</strong> is ready; here is how to save a first record.</p>
            \(tokenPart)
            <h2>1. Save a record with curl</h2>
            <pre id="welcome-curl">\(curl)</pre>
            <h2>2. Save a record from Swift with StratusKit</h2>
            <pre id="welcome-swift">\(swift)</pre>
            <h2>3. See it here</h2>
            <p>Open <a href="\(console.chrome.link("/console/schema"))">Schema</a>: the type <code>Note</code> was created by the save.
            Then <a href="\(console.chrome.link("/console/records", [("type", "Note")]))">Records</a> lists it.</p>
            """
    }

    func audit(_ console: ConsoleRequest) async throws -> Response {
        let entries = try await engine.consoleAudit(limit: 500)
        guard !entries.isEmpty else {
            return console.page(
                "Audit log", ConsoleLayout.empty("Nothing has been changed in the console yet.", "Every change made here (records, zones, tokens, schema) is listed with who made it and when."))
        }
        let rows: [[HTML]] = entries.map { entry in
            [
                "<time>\(ConsoleFormat.time(entry.atMilliseconds))</time>", "\(entry.operatorEmail)", "\(entry.container)",
                "<code>\(entry.action)</code>", "<span class=\"value\">\(entry.detail)</span>",
            ]
        }
        return console.page("Audit log", ConsoleLayout.table(headers: ["When (UTC)", "Operator", "Container", "Action", "What"], rows: rows, id: "audit"))
    }
}

enum ConsoleFormat {
    /// `yyyy-MM-dd HH:mm:ss` in UTC, by arithmetic (a DateFormatter per cell was most of a
    /// records page's render time).
    static func time(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(year)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
    }
}

/// Single quotes for a POSIX shell: safe to paste whatever the text holds.
enum ShellQuote {
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}

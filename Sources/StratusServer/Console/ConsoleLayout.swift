import StratusEngine

/// What every signed-in page shows at the top: the operator, the container and environment
/// being looked at, and the sections.
struct ConsoleChrome: Sendable {
    var operatorEmail: String
    var csrfToken: String
    var containers: [String]
    var container: String
    var environment: DatabaseEnvironment
    /// Path of the current screen (the switcher reloads it with the new choice).
    var path: String

    /// `c` and `env` query parameters that keep the choice on every link.
    var scopeQuery: [(String, String)] { [("c", container), ("env", environment.rawValue)] }

    func link(_ path: String, _ query: [(String, String)] = []) -> ConsoleURL { ConsoleURL(path, scopeQuery + query) }

    /// The hidden field every state-changing form carries.
    var csrfField: HTML { "<input type=\"hidden\" name=\"csrf\" value=\"\(csrfToken)\">" }
}

enum ConsoleLayout {
    static let sections: [(path: String, title: String)] = [
        ("/console", "Welcome"), ("/console/records", "Records"), ("/console/zones", "Zones"), ("/console/schema", "Schema"),
        ("/console/users", "Users"), ("/console/tokens", "Tokens & keys"),
        ("/console/telemetry", "Telemetry"), ("/console/logs", "Logs"), ("/console/audit", "Audit log"),
    ]

    /// A whole page. Without `chrome` (signed out) only the title bar is shown.
    static func page(title: String, chrome: ConsoleChrome?, _ body: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) · Stratus console</title>
        <link rel="stylesheet" href="/console/static/console.css">
        <script src="/console/static/console.js" defer></script>
        </head>
        <body>
        <header class="top">
        <a class="brand" href="/console">Stratus</a>
        \(chrome.map(header) ?? "")
        </header>
        \(chrome.map(navigation) ?? "")
        <main id="main">
        <h1>\(title)</h1>
        \(body)
        </main>
        </body>
        </html>
        """
    }

    static func header(_ chrome: ConsoleChrome) -> HTML {
        let options = HTML.join(
            chrome.containers.map { container in
                "<option value=\"\(container)\"\(container == chrome.container ? HTML(" selected") : "")>\(container)</option>"
            })
        let environments = HTML.join(
            DatabaseEnvironment.allCases.map { environment in
                "<option value=\"\(environment.rawValue)\"\(environment == chrome.environment ? HTML(" selected") : "")>\(environment.rawValue)</option>"
            })
        return """
            <form class="switcher" method="get" action="\(chrome.path)">
            <label>Container <select name="c" data-autosubmit>\(options)</select></label>
            <label>Environment <select name="env" data-autosubmit class="env-\(chrome.environment.rawValue)">\(environments)</select></label>
            <noscript><button type="submit">Switch</button></noscript>
            </form>
            <form class="signout" method="post" action="/console/signout">
            \(chrome.csrfField)
            <span class="who">\(chrome.operatorEmail)</span> <button type="submit" class="link">Sign out</button>
            </form>
            """
    }

    static func navigation(_ chrome: ConsoleChrome) -> HTML {
        let items = HTML.join(
            sections.map { section -> HTML in
                let current = section.path == chrome.path ? HTML(" aria-current=\"page\"") : ""
                return "<li><a href=\"\(chrome.link(section.path))\"\(current)>\(section.title)</a></li>"
            })
        return "<nav class=\"sections\" aria-label=\"Sections\"><ul>\(items)</ul></nav>"
    }

    /// What an empty list shows: what is missing and what to do about it.
    static func empty(_ what: String, _ hint: HTML) -> HTML {
        "<div class=\"empty\"><p><strong>\(what)</strong></p><p>\(hint)</p></div>"
    }

    static func notice(_ text: String, kind: String = "info") -> HTML {
        "<p class=\"notice \(kind)\" role=\"\(kind == "error" ? "alert" : "status")\">\(text)</p>"
    }

    static func table(headers: [String], rows: [[HTML]], id: String = "") -> HTML {
        let head = HTML.join(headers.map { "<th scope=\"col\">\($0)</th>" })
        let body = HTML.join(rows.map { row in "<tr>" + HTML.join(row.map { "<td>\($0)</td>" }) + "</tr>" })
        let idAttribute: HTML = id.isEmpty ? "" : " id=\"\(id)\""
        return "<div class=\"table-wrap\"><table\(idAttribute)><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>"
    }
}

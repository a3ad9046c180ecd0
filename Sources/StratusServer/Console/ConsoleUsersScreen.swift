import Hummingbird
import StratusEngine
import StratusModel

/// Users of a container: list and search, create, "act as" into the records screen, and a
/// user's subscriptions.
extension ConsoleScreens {
    func users(_ console: ConsoleRequest) async throws -> Response {
        let search = console["q"].lowercased()
        let accounts = try await engine.userAccounts(container: console.container).filter { account in
            search.isEmpty || account.user.name.lowercased().contains(search) || account.email.contains(search)
                || account.user.userRecordName.lowercased().contains(search)
        }
        let rows: [[HTML]] = accounts.map { account in
            let name = account.user.userRecordName
            let actAs = console.chrome.link("/console/records", [("db", "private"), ("as", name)])
            let manage = console.chrome.link("/console/users", [("user", name)])
            return [
                "\(account.user.name)", "\(account.email)", "<code>\(name)</code>", "\(account.discoverable ? "yes" : "no")",
                "<a href=\"\(actAs)\">Act as</a> · <a href=\"\(manage)\">Manage</a>",
            ]
        }
        var subscriptions: HTML = ""
        if !console["user"].isEmpty {
            subscriptions = try await userDetail(console, userRecordName: console["user"])
        } else if !console["subscriptions"].isEmpty {
            subscriptions = try await userSubscriptions(console, userRecordName: console["subscriptions"])
        }
        return console.page(
            "Users",
            """
            <form method="get" action="/console/users" class="bar">
            <input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Search <input type="text" name="q" value="\(console["q"])" placeholder="name, email or record name"></label>
            <button type="submit">Search</button>
            </form>
            \(accounts.isEmpty ? ConsoleLayout.empty(search.isEmpty ? "No users yet." : "No user matches.", "Users sign up on the sign-in page (/signin), or create one below.") : ConsoleLayout.table(headers: ["Name", "Email", "User record name", "Discoverable", ""], rows: rows, id: "users"))
            \(subscriptions)
            <h2>Create a user</h2>
            <form method="post" action="/console/users/create" class="bar">
            \(console.chrome.csrfField)<input type="hidden" name="c" value="\(console.container)"><input type="hidden" name="env" value="\(console.environment.rawValue)">
            <label>Name <input type="text" name="name" required></label>
            <label>Email <input type="email" name="email"></label>
            <label><input type="checkbox" name="discoverable" value="1"> Discoverable</label>
            <button type="submit">Create user</button>
            </form>
            """)
    }

    func userSubscriptions(_ console: ConsoleRequest, userRecordName: String) async throws -> HTML {
        let caller = try await engine.consoleCaller(container: console.container, actingAs: userRecordName)
        let scope = RequestScope(store: StoreKey(container: console.container, environment: console.environment, scope: .private, owner: userRecordName), caller: caller)
        let list = (try await engine.listSubscriptions(scope))["subscriptions"]?.arrayValue ?? []
        let rows: [[HTML]] = list.map { subscription in
            [
                "<code>\(subscription["subscriptionID"]?.stringValue ?? "")</code>", "\(subscription["subscriptionType"]?.stringValue ?? "")",
                "<pre>\(ConsoleJSON.pretty(subscription))</pre>",
            ]
        }
        return """
            <h2>Subscriptions of \(userRecordName) (private database)</h2>
            \(rows.isEmpty ? ConsoleLayout.empty("No subscriptions.", "Apps create them with subscriptions/modify.") : ConsoleLayout.table(headers: ["ID", "Type", "Definition"], rows: rows, id: "subscriptions"))
            """
    }

    func createUser(_ console: ConsoleRequest) async throws -> Response {
        let name = console["name"].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw CloudKitError.badRequest("a user needs a name") }
        let created = try await engine.createUser(
            name: name, container: console.container,
            options: NewUserOptions(email: console["email"], discoverable: console["discoverable"] == "1"))
        try await audit(console, "user.create", "\(name) (\(created.userRecordName))")
        return console.page(
            "User created",
            """
            \(ConsoleLayout.notice("Created \(name) (\(created.userRecordName)). Their web auth token is shown once:", kind: "ok"))
            <pre id="new-web-auth-token">\(created.webAuthToken)</pre>
            <p><a href="\(console.chrome.link("/console/users"))">Back to users</a></p>
            """)
    }
}

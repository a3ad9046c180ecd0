import Hummingbird
import StratusEngine
import StratusModel

/// One user on the Users screen (`?user=…`): their sign-ins (sign out everywhere),
/// discoverability, push tokens (list, delete) and subscriptions.
extension ConsoleScreens {
    func userDetail(_ console: ConsoleRequest, userRecordName: String) async throws -> HTML {
        let account = try await engine.userAccount(container: console.container, userRecordName: userRecordName)
        let sessions = try await engine.liveSessionCount(container: console.container, userRecordName: userRecordName)
        let tokens = try await engine.pushTokens(container: console.container, userRecordName: userRecordName)
        let fields: HTML = "\(console.chrome.csrfField)\(hiddenScope(console))<input type=\"hidden\" name=\"user\" value=\"\(userRecordName)\">"
        let tokenRows: [[HTML]] = tokens.map { token in
            [
                "<code>\(token.digest.prefix(16))…</code>", "\(token.environment.rawValue)", "\(token.apnsEnvironment)",
                "\(token.registered ? "yes" : "no")",
                """
                <form method="post" action="/console/users/push-token/delete" data-confirm="Delete this push token? The device gets no more notifications until the app registers again.">
                \(fields)<input type="hidden" name="token" value="\(token.digest)">
                <button type="submit" class="danger">Delete</button></form>
                """,
            ]
        }
        let name = account.user.name.isEmpty ? userRecordName : account.user.name
        let subscriptions = try await userSubscriptions(console, userRecordName: userRecordName)
        return """
            <h2 id="user-detail">\(name) <span class="muted"><code>\(userRecordName)</code></span></h2>
            <div class="columns">
            <form method="post" action="/console/users/signout-everywhere" class="stack" data-confirm="Sign \(name) out on every device? Every web auth token of theirs stops working at once.">
            \(fields)
            <p><strong id="live-sessions">\(sessions)</strong> live sign-in\(sessions == 1 ? "" : "s") (web auth tokens).</p>
            <button type="submit" class="danger" id="signout-everywhere">Sign out everywhere</button>
            </form>
            <form method="post" action="/console/users/discoverable" class="stack">
            \(fields)<input type="hidden" name="discoverable" value="\(account.discoverable ? "0" : "1")">
            <p>Discoverable: <strong id="discoverable">\(account.discoverable ? "yes" : "no")</strong>. Discoverable users can be found by email and in <code>users/discover</code>.</p>
            <button type="submit" class="secondary" id="toggle-discoverable">\(account.discoverable ? "Make not discoverable" : "Make discoverable")</button>
            </form>
            </div>
            <h3>Push tokens</h3>
            \(tokenRows.isEmpty ? ConsoleLayout.empty("No push tokens.", "Apps make them with tokens/create and tokens/register.") : ConsoleLayout.table(headers: ["Token", "Environment", "APNs environment", "Registered", ""], rows: tokenRows, id: "push-tokens"))
            \(subscriptions)
            """
    }

    func hiddenScope(_ console: ConsoleRequest) -> HTML {
        "<input type=\"hidden\" name=\"c\" value=\"\(console.container)\"><input type=\"hidden\" name=\"env\" value=\"\(console.environment.rawValue)\">"
    }

    func signOutEverywhere(_ console: ConsoleRequest) async throws -> Response {
        let user = console["user"]
        let removed = try await engine.signOutEverywhere(container: console.container, userRecordName: user)
        try await audit(console, "user.signout-everywhere", "\(user): \(removed) web auth tokens ended")
        return ConsoleResponse.redirect(console.chrome.link("/console/users", [("user", user)]))
    }

    func setDiscoverable(_ console: ConsoleRequest) async throws -> Response {
        let user = console["user"]
        let discoverable = console["discoverable"] == "1"
        try await engine.setDiscoverable(discoverable, container: console.container, userRecordName: user)
        try await audit(console, "user.discoverable", "\(user): \(discoverable ? "discoverable" : "not discoverable")")
        return ConsoleResponse.redirect(console.chrome.link("/console/users", [("user", user)]))
    }

    func deletePushToken(_ console: ConsoleRequest) async throws -> Response {
        let user = console["user"]
        try await engine.deletePushToken(
            container: console.container, digest: console["token"],
            reason: "deleted in the console by \(console.session.email)")
        try await audit(console, "user.push-token.delete", "\(user): push token \(console["token"].prefix(16))")
        return ConsoleResponse.redirect(console.chrome.link("/console/users", [("user", user)]))
    }
}

import Hummingbird
import StratusEngine
import StratusModel

/// API tokens (create with allowed origins and callback URL, list, revoke) and the container's
/// server-to-server keys. A token is shown once, when made: the server keeps only its digest.
extension ConsoleScreens {
    func tokens(_ console: ConsoleRequest) async throws -> Response {
        let tokens = try await engine.apiTokens(container: console.container)
        let hidden: HTML = "<input type=\"hidden\" name=\"c\" value=\"\(console.container)\"><input type=\"hidden\" name=\"env\" value=\"\(console.environment.rawValue)\">"
        let rows: [[HTML]] = tokens.map { token in
            ["<code>\(token.id)</code>", "\(token.allowedOrigins.joined(separator: ", "))", "\(token.callbackURL ?? "postMessage")",
             "<time>\(ConsoleFormat.time(token.createdMilliseconds))</time>",
             """
             <form method="post" action="/console/tokens/revoke" data-confirm="Revoke token \(token.id)? Apps using it stop working at once.">
             \(console.chrome.csrfField)\(hidden)<input type="hidden" name="id" value="\(token.id)">
             <button type="submit" class="danger" id="revoke-\(token.id)">Revoke</button></form>
             """]
        }
        let keys = try await engine.serverKeys(container: console.container)
        let keyRows: [[HTML]] = keys.map { key in
            ["<code>\(key.keyID)</code>", "\(key.actAsUsers ? "yes" : "no")", "<time>\(ConsoleFormat.time(key.createdMilliseconds))</time>"]
        }
        return console.page("Tokens & keys", """
            <h2>API tokens</h2>
            \(tokens.isEmpty ? ConsoleLayout.empty("No API tokens.", "Create one below; apps send it as ckAPIToken.") : ConsoleLayout.table(headers: ["Token", "Allowed origins", "Sign-in callback", "Created (UTC)", ""], rows: rows, id: "tokens"))
            <form method="post" action="/console/tokens/create" class="bar">
            \(console.chrome.csrfField)\(hidden)
            <label>Allowed origins <input type="text" name="origins" value="*" placeholder="* or https://app.example.com, …"></label>
            <label>Sign-in callback URL <input type="text" name="callback" placeholder="empty: postMessage"></label>
            <button type="submit" id="create-token">Create API token</button>
            </form>
            <h2>Server-to-server keys</h2>
            \(keys.isEmpty ? ConsoleLayout.empty("No server-to-server keys.", "Add one with <code>stratus key add</code>.") : ConsoleLayout.table(headers: ["Key ID", "May act as users", "Added (UTC)"], rows: keyRows, id: "keys"))
            """)
    }

    func createToken(_ console: ConsoleRequest) async throws -> Response {
        let origins = console["origins"].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let callback = console["callback"].trimmingCharacters(in: .whitespaces)
        let token = try await engine.createAPIToken(container: console.container)
        try await engine.configureAPIToken(token, container: console.container, allowedOrigins: origins.isEmpty ? ["*"] : origins,
                                           callbackURL: callback.isEmpty ? nil : callback)
        let id = String(secretDigest(token).prefix(16))
        try await audit(console, "token.create", "API token \(id)")
        return console.page("Token created", """
            \(ConsoleLayout.notice("Copy the token now: it is shown only once.", kind: "ok"))
            <pre id="new-token">\(token)</pre>
            <p><a href="\(console.chrome.link("/console/tokens"))">Back to tokens</a></p>
            """)
    }

    func revokeToken(_ console: ConsoleRequest) async throws -> Response {
        try await engine.revokeAPIToken(container: console.container, idOrToken: console["id"])
        try await audit(console, "token.revoke", "API token \(console["id"])")
        return ConsoleResponse.redirect(console.chrome.link("/console/tokens"))
    }
}

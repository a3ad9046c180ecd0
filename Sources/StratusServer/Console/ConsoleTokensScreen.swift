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
            [
                "<code>\(token.id)</code>", "\(token.allowedOrigins.joined(separator: ", "))", "\(token.callbackURL ?? "postMessage")",
                "<time>\(ConsoleFormat.time(token.createdMilliseconds))</time>",
                """
                <form method="post" action="/console/tokens/revoke" data-confirm="Revoke token \(token.id)? Apps using it stop working at once.">
                \(console.chrome.csrfField)\(hidden)<input type="hidden" name="id" value="\(token.id)">
                <button type="submit" class="danger" id="revoke-\(token.id)">Revoke</button></form>
                """,
            ]
        }
        let keys = try await engine.serverKeys(container: console.container)
        let keyRows: [[HTML]] = keys.map { key in
            [
                "<code>\(key.keyID)</code>", "\(key.actAsUsers ? "yes" : "no")", "<time>\(ConsoleFormat.time(key.createdMilliseconds))</time>",
                """
                <form method="post" action="/console/keys/revoke" data-confirm="Revoke key \(key.keyID.prefix(16))…? Servers signing with it are refused at once.">
                \(console.chrome.csrfField)\(hidden)<input type="hidden" name="key" value="\(key.keyID)">
                <button type="submit" class="danger">Revoke</button></form>
                """,
            ]
        }
        return console.page(
            "Tokens & keys",
            """
            <h2>API tokens</h2>
            \(tokens.isEmpty ? ConsoleLayout.empty("No API tokens.", "Create one below; apps send it as ckAPIToken.") : ConsoleLayout.table(headers: ["Token", "Allowed origins", "Sign-in callback", "Created (UTC)", ""], rows: rows, id: "tokens"))
            <form method="post" action="/console/tokens/create" class="bar">
            \(console.chrome.csrfField)\(hidden)
            <label>Allowed origins <input type="text" name="origins" value="*" placeholder="* or https://app.example.com, …"></label>
            <label>Sign-in callback URL <input type="text" name="callback" placeholder="empty: postMessage"></label>
            <button type="submit" id="create-token">Create API token</button>
            </form>
            <h2>Server-to-server keys</h2>
            \(keys.isEmpty ? ConsoleLayout.empty("No server-to-server keys.", "Add a public key below (or with <code>stratus key add</code>).") : ConsoleLayout.table(headers: ["Key ID", "May act as users", "Added (UTC)", ""], rows: keyRows, id: "keys"))
            <form method="post" action="/console/keys/add" class="stack">
            \(console.chrome.csrfField)\(hidden)
            <label>Public key (PEM, P-256): make one with <code>openssl ecparam -name prime256v1 -genkey -noout -out key.pem &amp;&amp; openssl ec -in key.pem -pubout</code>
            <textarea name="pem" id="key-pem" spellcheck="false" placeholder="-----BEGIN PUBLIC KEY-----"></textarea></label>
            <label><input type="checkbox" name="actAsUsers" value="1"> May act as users (sign requests on behalf of any user of this container)</label>
            <button type="submit" id="add-key">Add key</button>
            </form>
            """)
    }

    func createToken(_ console: ConsoleRequest) async throws -> Response {
        let origins = console["origins"].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let callback = console["callback"].trimmingCharacters(in: .whitespaces)
        let token = try await engine.createAPIToken(container: console.container)
        try await engine.configureAPIToken(
            token, container: console.container, allowedOrigins: origins.isEmpty ? ["*"] : origins,
            callbackURL: callback.isEmpty ? nil : callback)
        let id = String(secretDigest(token).prefix(16))
        try await audit(console, "token.create", "API token \(id)")
        return console.page(
            "Token created",
            """
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

    func addServerKey(_ console: ConsoleRequest) async throws -> Response {
        let pem = console["pem"].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !pem.isEmpty else { throw CloudKitError.badRequest("paste the key's PEM text (-----BEGIN PUBLIC KEY----- …)") }
        let actAsUsers = console["actAsUsers"] == "1"
        let keyID = try await engine.addServerKey(container: console.container, publicKeyPEM: pem, actAsUsers: actAsUsers)
        try await audit(console, "key.add", "server-to-server key \(keyID)\(actAsUsers ? ", may act as users" : "")")
        return console.page(
            "Key added",
            """
            \(ConsoleLayout.notice("Key added. Servers sign requests with the private key and send this key ID:", kind: "ok"))
            <pre id="new-key-id">\(keyID)</pre>
            <p><a href="\(console.chrome.link("/console/tokens"))">Back to tokens &amp; keys</a></p>
            """)
    }

    func revokeServerKey(_ console: ConsoleRequest) async throws -> Response {
        try await engine.revokeServerKey(container: console.container, keyID: console["key"])
        try await audit(console, "key.revoke", "server-to-server key \(console["key"])")
        return ConsoleResponse.redirect(console.chrome.link("/console/tokens"))
    }
}

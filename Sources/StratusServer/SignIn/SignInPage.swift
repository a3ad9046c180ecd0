/// The sign-in and sign-up page: a plain HTML form that works without JavaScript, with labels,
/// a language, a live error region and autocomplete hints for password managers.
enum SignInPage {
    struct Form {
        var container: String
        /// Handle of the API token the app uses (decides the callback URL), or empty.
        var token: String
        var email = ""
        var name = ""
        var error: String?
    }

    static func render(_ form: Form) -> String {
        let error = form.error.map { #"<p id="error" role="alert" class="error">\#(escape($0))</p>"# } ?? ""
        let described = form.error == nil ? "" : #" aria-describedby="error""#
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in to \(escape(form.container))</title>
            <style>
            body { font: 1rem/1.5 system-ui, sans-serif; max-width: 28rem; margin: 2rem auto; padding: 0 1rem; }
            label { display: block; margin-top: 0.75rem; }
            input[type=email], input[type=password], input[type=text] { width: 100%; padding: 0.4rem; font: inherit; }
            button { margin-top: 1rem; padding: 0.5rem 1rem; font: inherit; }
            .error { color: #a40000; font-weight: bold; }
            fieldset { border: 1px solid #999; margin-top: 1.5rem; }
            </style>
            </head>
            <body>
            <main>
            <h1>Sign in to \(escape(form.container))</h1>
            \(error)
            <form method="post" action="/signin"\(described)>
            <input type="hidden" name="container" value="\(escape(form.container))">
            <input type="hidden" name="token" value="\(escape(form.token))">
            <label for="email">Email address</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="\(escape(form.email))">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required minlength="8">
            <label><input type="checkbox" name="keep" value="1"> Keep me signed in for two weeks</label>
            <button type="submit" name="action" value="signin">Sign in</button>
            <fieldset>
            <legend>New here? Create an account with the email address and password above</legend>
            <label for="name">Your name (optional)</label>
            <input id="name" name="name" type="text" autocomplete="name" value="\(escape(form.name))">
            <label><input type="checkbox" name="discoverable" value="1"> Let people who know my email address find me</label>
            <button type="submit" name="action" value="signup">Create account</button>
            </fieldset>
            </form>
            </main>
            </body>
            </html>
            """
    }

    /// After sign-in without a callback URL: hands the token to the window that opened this one
    /// (CloudKit JS opens the sign-in page as a popup) and closes; says what to do otherwise.
    static func deliver(token: String, targetOrigin: String) -> String {
        let message = #"{"ckWebAuthToken":\#(jsonString(token))}"#
        return """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Signed in</title></head>
            <body>
            <main>
            <h1>Signed in</h1>
            <p id="status" role="status">You are signed in. You can close this window.</p>
            </main>
            <script>
            if (window.opener) { window.opener.postMessage(\(message), \(jsonString(targetOrigin))); window.close(); }
            </script>
            </body>
            </html>
            """
    }

    static func escape(_ text: String) -> String { HTML.escape(text) }

    /// A JSON string literal that is also safe inside a `<script>` element.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

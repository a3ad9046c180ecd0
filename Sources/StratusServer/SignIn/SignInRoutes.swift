import Foundation
import Hummingbird
import StratusEngine
import StratusModel

/// The CKWS sign-in flow (docs/protocol.md §2.2): `GET /signin` shows the form, `POST /signin` signs in
/// or up and delivers the web auth token (redirect to the API token's callback URL with
/// `ckWebAuthToken=`, else postMessage to the opener; JSON for clients that ask with
/// `Accept: application/json` or send a JSON body), `POST /signout` revokes a token.
struct SignInRoutes: Sendable {
    let engine: Engine
    let hasher: any PasswordHashing
    let maximumBodyBytes: Int
    /// The trusted identity provider, if the operator configured one.
    let identityProvider: IdentityTokenVerifier?

    func add(to router: Router<BasicRequestContext>) {
        router.get("/signin") { request, _ in await page(request) }
        router.post("/signin") { request, _ in await signIn(request) }
        router.post("/signout") { request, _ in await signOut(request) }
        router.post("/signin/oidc") { request, _ in await signInWithIdentityToken(request) }
    }

    /// `{"container", "identityToken", "keep"?}` → `{"userRecordName", "webAuthToken", "expires"}`.
    func signInWithIdentityToken(_ request: Request) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        do {
            guard let identityProvider else {
                throw CloudKitError.badRequest("this server trusts no identity provider; the operator starts it with --oidc-issuer, --oidc-audience and --oidc-jwks")
            }
            let bytes = try await RequestBodyReader(maximumBytes: 64 * 1024).bytes(from: request.body)
            let fields = try FormFields.parse(bytes, json: true)
            guard let container = fields["container"], !container.isEmpty else { throw CloudKitError.badRequest("container is required") }
            guard let token = fields["identityToken"], !token.isEmpty else {
                throw CloudKitError.badRequest("identityToken is required: the provider's ID token (a JWT)")
            }
            let claims = try await identityProvider.verify(token)
            let signedIn = try await engine.signInWithIdentity(
                container: container, issuer: claims.iss.value, subject: claims.sub.value,
                email: claims.email, name: claims.name,
                keepSignedIn: fields["keep"] == "true" || fields["keep"] == "1")
            return CloudKitResponse.json(
                [
                    "userRecordName": .string(signedIn.userRecordName), "webAuthToken": .string(signedIn.webAuthToken),
                    "expires": .int(signedIn.expiresMilliseconds),
                ], uuid: uuid)
        } catch let error as CloudKitError {
            return CloudKitResponse.error(error, uuid: uuid)
        } catch {
            return CloudKitResponse.error(CloudKitError.badRequest("send a JSON object with container and identityToken"), uuid: uuid)
        }
    }

    func page(_ request: Request) async -> Response {
        let container = request.uri.queryParameters.get("container") ?? ""
        let token = request.uri.queryParameters.get("token") ?? ""
        return html(SignInPage.render(.init(container: container, token: token)))
    }

    func signIn(_ request: Request) async -> Response {
        var wantsJSON = (request.headers[.accept] ?? "").contains("application/json")
        var fields: [String: String] = [:]
        do {
            let bytes = try await RequestBodyReader(maximumBytes: min(maximumBodyBytes, 64 * 1024)).bytes(from: request.body)
            // JSON clients (whatever Content-Type they send, often text/plain) get JSON answers.
            let isJSON =
                (request.headers[.contentType] ?? "").contains("application/json")
                || bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
            wantsJSON = wantsJSON || isJSON
            fields = try FormFields.parse(bytes, json: isJSON)
            let container = fields["container"] ?? ""
            guard !container.isEmpty else { throw CloudKitError.badRequest("container is required (the page's address names it)") }
            let email = fields["email"] ?? ""
            let password = fields["password"] ?? ""
            let keep = fields["keep"] == "1" || fields["keep"] == "true"
            let signedIn: SignedIn
            if fields["action"] == "signup" {
                signedIn = try await engine.signUp(
                    container: container, name: fields["name"] ?? "", email: email, password: password,
                    discoverable: fields["discoverable"] == "1" || fields["discoverable"] == "true",
                    keepSignedIn: keep, hasher: hasher)
            } else {
                signedIn = try await engine.signIn(container: container, email: email, password: password, keepSignedIn: keep, hasher: hasher)
            }
            if wantsJSON {
                return CloudKitResponse.json(
                    [
                        "userRecordName": .string(signedIn.userRecordName), "webAuthToken": .string(signedIn.webAuthToken),
                        "expires": .int(signedIn.expiresMilliseconds),
                    ], uuid: CloudKitResponse.newRequestUUID())
            }
            return try await deliver(signedIn, container: container, tokenHandle: fields["token"] ?? "")
        } catch {
            let failure = error as? CloudKitError ?? CloudKitError.badRequest("the form could not be read; reload the page and try again")
            if wantsJSON { return CloudKitResponse.error(failure, uuid: CloudKitResponse.newRequestUUID()) }
            var response = html(
                SignInPage.render(
                    .init(
                        container: fields["container"] ?? "", token: fields["token"] ?? "",
                        email: fields["email"] ?? "", name: fields["name"] ?? "", error: failure.reason)),
                status: HTTPResponse.Status(code: failure.code.httpStatus))
            if let retryAfter = failure.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        }
    }

    /// Redirect to the callback URL, or the postMessage page aimed at the token's one allowed origin.
    func deliver(_ signedIn: SignedIn, container: String, tokenHandle: String) async throws -> Response {
        let token = tokenHandle.isEmpty ? nil : try await engine.apiTokens(container: container).first { $0.id == tokenHandle }
        if let callback = token?.callbackURL, var components = URLComponents(string: callback) {
            var items = components.queryItems ?? []
            items.append(URLQueryItem(name: "ckWebAuthToken", value: signedIn.webAuthToken))
            components.queryItems = items
            // URLComponents leaves '+' alone in queries; tokens contain it.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            return Response(status: .seeOther, headers: [.location: components.string ?? callback, .cacheControl: "no-store"])
        }
        let origins = token?.allowedOrigins.filter { $0 != "*" } ?? []
        return html(SignInPage.deliver(token: signedIn.webAuthToken, targetOrigin: origins.count == 1 ? origins[0] : "*"))
    }

    func signOut(_ request: Request) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        let container = request.uri.queryParameters.get("container") ?? ""
        guard let token = QueryCredentials(rawQuery: request.uri.query).webAuthToken, !container.isEmpty else {
            return CloudKitResponse.error(.badRequest("sign-out needs container and ckWebAuthToken query parameters"), uuid: uuid)
        }
        do {
            guard try await engine.signOut(container: container, webAuthToken: token) else {
                return CloudKitResponse.error(CloudKitError(.authenticationRequired, "ckWebAuthToken is not valid; nothing to sign out"), uuid: uuid)
            }
            return CloudKitResponse.json(["signedOut": true], uuid: uuid)
        } catch let error as CloudKitError {
            return CloudKitResponse.error(error, uuid: uuid)
        } catch {
            return CloudKitResponse.error(CloudKitError(.internalError, "sign-out failed; report request \(uuid) to the server's operator"), uuid: uuid)
        }
    }

    func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// `application/x-www-form-urlencoded` (or a flat JSON object) as a dictionary.
enum FormFields {
    static func parse(_ bytes: [UInt8], json: Bool) throws -> [String: String] {
        if json {
            guard case .object(let members) = try RequestBodyReader.parse(bytes) else {
                throw CloudKitError.badRequest("send a JSON object with email and password")
            }
            return members.compactMapValues { value in
                if let text = value.stringValue { return text }
                if let flag = value.boolValue { return flag ? "true" : "false" }
                return nil
            }
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            if fields[key] == nil { fields[key] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }

    static func decode(_ text: Substring) -> String {
        QueryCredentials.decode(Substring(text.replacingOccurrences(of: "+", with: " ")))
    }
}

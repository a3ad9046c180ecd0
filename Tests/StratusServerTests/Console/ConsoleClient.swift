import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// A browser's side of the console in router tests: keeps the session cookie and the CSRF token
/// of the last page, and posts forms as a browser does (with this server, `localhost` in router tests, as Origin).
struct ConsoleClient {
    let client: any TestClientProtocol
    var cookie: String?

    struct Page {
        var status: Int
        var body: String
        var headers: HTTPFields
        /// The CSRF token the page's forms carry.
        var csrf: String? {
            guard let range = body.range(of: #"name="csrf" value="([0-9a-f]+)""#, options: .regularExpression) else { return nil }
            return String(body[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
        }
    }

    func get(_ uri: String) async throws -> Page {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = "stratus_console=\(cookie)" }
        return try await client.execute(uri: uri, method: .get, headers: headers) { response in
            Page(status: Int(response.status.code), body: String(buffer: response.body), headers: response.headers)
        }
    }

    /// Posts form fields; `origin` is what the browser names as the page's origin.
    func post(_ uri: String, _ fields: [(String, String)], origin: String? = "http://localhost") async throws -> Page {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let origin { headers[.origin] = origin }
        if let cookie { headers[.cookie] = "stratus_console=\(cookie)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            Page(status: Int(response.status.code), body: String(buffer: response.body), headers: response.headers)
        }
    }

    /// Posts a form with a file in it, as `multipart/form-data` (an asset upload).
    func postMultipart(_ uri: String, _ fields: [(String, String)], file: (field: String, filename: String, bytes: [UInt8])) async throws -> Page {
        let boundary = "----console-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += file.bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        var headers: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)", .origin: "http://localhost"]
        if let cookie { headers[.cookie] = "stratus_console=\(cookie)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: body)) { response in
            Page(status: Int(response.status.code), body: String(buffer: response.body), headers: response.headers)
        }
    }

    /// Signs in with a password and keeps the session cookie.
    mutating func signIn(email: String, password: String) async throws -> Page {
        let page = try await post("/console/signin", [("email", email), ("password", password), ("next", "")])
        if let setCookie = page.headers[.setCookie], let value = ConsoleClient.cookieValue(setCookie) { cookie = value }
        return page
    }

    static func cookieValue(_ setCookie: String) -> String? {
        guard setCookie.hasPrefix("stratus_console=") else { return nil }
        return String(setCookie.dropFirst("stratus_console=".count).prefix { $0 != ";" })
    }
}

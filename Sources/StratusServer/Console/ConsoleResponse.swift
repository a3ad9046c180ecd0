import HTTPTypes
import Hummingbird

/// Responses of the console: every page carries headers that keep script to the console's own
/// files (no inline script runs even if markup ever slipped through), forbid framing and keep
/// addresses (which may hold a one-time link) out of other sites' Referer headers. (Not
/// `no-referrer`: with it browsers send `Origin: null` on form posts, which the CSRF check refuses.)
enum ConsoleResponse {
    static let pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func page(_ markup: HTML, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = pagePolicy
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: markup.description)))
    }

    static func redirect(_ location: ConsoleURL) -> Response {
        var headers = securityHeaders()
        headers[.location] = location.description
        return Response(status: .seeOther, headers: headers)
    }

    /// A file compiled into the binary (the stylesheet, the script).
    static func file(_ text: String, contentType: String) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func securityHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "same-origin"
        return headers
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}

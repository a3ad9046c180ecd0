import Foundation
import HTTPTypes
import Hummingbird
import StratusEngine
import StratusModel

/// Builds CKWS responses: JSON bodies with the headers Apple's service sends.
enum CloudKitResponse {
    static let versionHeader = HTTPField.Name("X-Apple-CloudKit-Version")!
    static let requestUUIDHeader = HTTPField.Name("X-Apple-Request-UUID")!
    static let webAuthTokenHeader = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!

    /// The response headers a cross-origin (CloudKit JS) client may read, as Apple exposes them.
    static let exposedHeaders = "X-Apple-Request-UUID, X-Apple-CloudKit-Web-Auth-Token, X-Apple-CloudKit-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After"

    static func newRequestUUID() -> String { RequestUUIDs.next() }

    /// A JSON response with `status`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, uuid: String) -> Response {
        let bytes = value.serializedUnordered()
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[versionHeader] = "1.0"
        headers[requestUUIDHeader] = uuid
        RequestRecord.current?.note(uuid: uuid)
        // Access-Control-Expose-Headers is added by OriginPolicyMiddleware, to cross-origin
        // requests only: other clients don't read it, and it was a quarter of a lookup's headers.
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A whole-request failure: `{"uuid", "serverErrorCode", "reason"}` plus `retryAfter` and
    /// `redirectURL` when set, sent with the code's HTTP status.
    static func error(_ error: CloudKitError, uuid: String) -> Response {
        RequestRecord.current?.note(serverErrorCode: error.code.rawValue)
        var body: [String: JSONValue] = [
            "uuid": .string(uuid),
            "serverErrorCode": .string(error.code.rawValue),
            "reason": .string(error.reason),
        ]
        if let retryAfter = error.retryAfter { body["retryAfter"] = .int(Int64(retryAfter)) }
        if let redirectURL = error.redirectURL { body["redirectURL"] = .string(redirectURL) }
        if let serverRecord = error.serverRecord { body["serverRecord"] = serverRecord }
        var response = json(.object(body), status: HTTPResponse.Status(code: error.code.httpStatus), uuid: uuid)
        if let retryAfter = error.retryAfter, error.code == .throttled || error.code == .tryAgainLater {
            response.headers[.retryAfter] = String(retryAfter)
        }
        return response
    }
}

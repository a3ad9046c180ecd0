import NIOCore
import StratusModel

/// Complete HTTP/1.1 responses written straight to a socket, for the moments no request handler
/// is there to answer: a connection refused at the cap, a request whose headers or body never
/// arrived in time. Each closes the connection and carries a CKWS error dictionary.
enum CannedResponse {
    /// 503 TRY_AGAIN_LATER: every connection the server allows is busy.
    static func tooManyConnections(maximum: Int) -> ByteBuffer {
        render(
            status: "503 Service Unavailable", code: .tryAgainLater,
            reason: "the server is serving as many connections as it allows (\(maximum)) and none is idle; retry after a moment",
            retryAfter: 1)
    }

    /// 408: the headers did not arrive within the header timeout.
    static func headerTimeout(_ timeout: Duration) -> ByteBuffer {
        render(
            status: "408 Request Timeout", code: .badRequest,
            reason: "the request's headers did not arrive within \(seconds(timeout)) s; send each request whole", retryAfter: nil)
    }

    /// 408: the body did not arrive within the body timeout.
    static func bodyTimeout(_ timeout: Duration, bytesPerSecond: Int) -> ByteBuffer {
        render(
            status: "408 Request Timeout", code: .badRequest,
            reason: "the request body did not arrive in time (\(seconds(timeout)) s plus 1 s for every \(bytesPerSecond) bytes); send it faster",
            retryAfter: nil)
    }

    private static func render(status: String, code: ServerErrorCode, reason: String, retryAfter: Int?) -> ByteBuffer {
        var body: [String: JSONValue] = [
            "uuid": .string(RequestUUIDs.next()),
            "serverErrorCode": .string(code.rawValue),
            "reason": .string(reason),
        ]
        var retryHeader = ""
        if let retryAfter {
            body["retryAfter"] = .int(Int64(retryAfter))
            retryHeader = "Retry-After: \(retryAfter)\r\n"
        }
        let json = JSONValue.object(body).serializedUnordered()
        var buffer = ByteBuffer()
        buffer.writeString("HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=UTF-8\r\n\(retryHeader)Content-Length: \(json.count)\r\nConnection: close\r\n\r\n")
        buffer.writeBytes(json)
        return buffer
    }

    private static func seconds(_ duration: Duration) -> String {
        let components = duration.components
        let value = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

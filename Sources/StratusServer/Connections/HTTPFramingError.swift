import NIOHTTP1
import StratusEngine

/// Turns an HTTP framing failure met while reading a request body (a malformed chunk, a body
/// cut short by the client closing) into the BAD_REQUEST it is: the client sent a broken
/// request, the server did not fail.
enum HTTPFramingError {
    /// The client-facing error for `error`, or `nil` when it is not a framing failure.
    static func classify(_ error: any Error) -> CloudKitError? {
        guard let parserError = error as? HTTPParserError else { return nil }
        return .badRequest("the request is not well-formed HTTP: \(describe(parserError))")
    }

    static func isFraming(_ error: any Error) -> Bool { error is HTTPParserError }

    /// The BAD_REQUEST for a framing failure (`isFraming`); anything else becomes a generic one.
    static func badRequest(for error: any Error) -> CloudKitError {
        classify(error) ?? .badRequest("the request is not well-formed HTTP")
    }

    static func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidChunkSize:
            return "a chunk size of the chunked body is not a valid hexadecimal size, or is too large"
        case .invalidEOFState, .closedConnection:
            return "the connection ended before the whole body arrived (it is shorter than its Content-Length, or its last chunk is missing)"
        case .headerOverflow:
            return "the headers or the chunked body's trailers are larger than the server accepts"
        case .invalidContentLength, .unexpectedContentLength:
            return "the Content-Length header is not valid for this request"
        case .invalidHeaderToken, .invalidCharactersUsed, .lfExpected, .invalidConstant:
            return "the request contains characters HTTP does not allow where they appear"
        default:
            return "\(error)"
        }
    }
}

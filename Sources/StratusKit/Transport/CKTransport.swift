import Foundation

/// One HTTP request the SDK sends to a Stratus server.
public struct StratusHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// How long to wait for the response (the running operation's `timeoutIntervalForRequest`);
    /// `nil` leaves it to the transport. Transports should fail the request when it passes.
    public var timeout: TimeInterval?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The server's answer.
public struct StratusHTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How the SDK reaches the server. The default is ``URLSessionTransport``; supply another one
/// (for example over async-http-client) through ``StratusConfiguration``.
///
/// A transport throws only when no HTTP response arrived; HTTP error statuses are responses.
public protocol StratusTransport: Sendable {
    func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse
    /// Sends the file at `file` as the request body (asset uploads). Transports should stream
    /// it; the default reads it into memory and calls ``send(_:)``.
    func upload(_ request: StratusHTTPRequest, fromFile file: URL) async throws -> StratusHTTPResponse
    /// Writes the response body to a new file at `destination` (asset downloads) and answers
    /// the status and headers with an empty body. Transports should stream it; the default
    /// holds the body in memory.
    func download(_ request: StratusHTTPRequest, to destination: URL) async throws -> StratusHTTPResponse
}

extension StratusTransport {
    public func upload(_ request: StratusHTTPRequest, fromFile file: URL) async throws -> StratusHTTPResponse {
        var request = request
        request.body = try Data(contentsOf: file)
        return try await send(request)
    }

    public func download(_ request: StratusHTTPRequest, to destination: URL) async throws -> StratusHTTPResponse {
        var response = try await send(request)
        if (200..<300).contains(response.status) { try response.body.write(to: destination) }
        response.body = Data()
        return response
    }
}

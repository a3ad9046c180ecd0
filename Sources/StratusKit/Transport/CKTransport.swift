import Foundation

/// One HTTP request the SDK sends to a Stratus server.
public struct StratusHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
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
}

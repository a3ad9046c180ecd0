import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport over `URLSession` (FoundationNetworking on Linux). One session is shared by all
/// requests, so connections are reused; URLSession negotiates and decodes gzip itself (setting
/// `Accept-Encoding` by hand would stop libcurl on Linux from decoding).
public final class URLSessionTransport: StratusTransport {
    private let session: URLSession

    /// Creates a transport with its own ephemeral session.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 8
        self.session = URLSession(configuration: configuration)
    }

    /// Uses the given session.
    public init(session: URLSession) {
        self.session = session
    }

    public func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw CKError(.networkFailure, "the server's response is not HTTP")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return StratusHTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}

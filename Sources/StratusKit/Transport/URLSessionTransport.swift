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
        let (data, response) = try await session.data(for: urlRequest(request))
        return try Self.answer(response, body: data)
    }

    /// Streams the file from disk (URLSession reads it in pieces).
    public func upload(_ request: StratusHTTPRequest, fromFile file: URL) async throws -> StratusHTTPResponse {
        var plain = request
        plain.body = nil
        let (data, response) = try await session.upload(for: urlRequest(plain), fromFile: file)
        return try Self.answer(response, body: data)
    }

    /// URLSession writes the body to a temporary file as it arrives; it is moved to `destination`.
    public func download(_ request: StratusHTTPRequest, to destination: URL) async throws -> StratusHTTPResponse {
        let (temporary, response) = try await session.download(for: urlRequest(request))
        let answer = try Self.answer(response, body: Data())
        if (200..<300).contains(answer.status) {
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: temporary, to: destination)
        } else {
            try? FileManager.default.removeItem(at: temporary)
        }
        return answer
    }

    func urlRequest(_ request: StratusHTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        if let timeout = request.timeout { urlRequest.timeoutInterval = timeout }
        return urlRequest
    }

    static func answer(_ response: URLResponse, body data: Data) throws -> StratusHTTPResponse {
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

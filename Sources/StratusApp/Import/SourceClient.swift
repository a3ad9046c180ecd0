import Crypto
import Foundation
import StratusModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The CloudKit Web Services endpoint an import reads from: signed database requests, with the
/// source's throttling honoured (`retryAfter`, `Retry-After`, THROTTLED, TRY_AGAIN_LATER, 503).
struct SourceClient: Sendable {
    let baseURL: String
    let container: String
    let environment: String
    let signer: ServerKeySigner
    let pacer: RequestPacer
    let session: URLSession
    /// Attempts of one request before the import stops.
    let attempts = 20

    init(baseURL: String, container: String, environment: String, signer: ServerKeySigner, pacer: RequestPacer) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.container = container
        self.environment = environment
        self.signer = signer
        self.pacer = pacer
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// POSTs `body` to `database`/`operation` and answers the JSON of a 200, retrying what the
    /// source asks to be retried; any other answer is an `ImportError` naming it.
    /// `user`: the request is the user's (their web auth token with the container's API token),
    /// not signed with the key. `body` nil: a GET.
    func post(database: String, _ operation: String, _ body: JSONValue?, as user: SourceUser? = nil) async throws -> JSONValue {
        var path = "/database/1/\(container)/\(environment)/\(database)/\(operation)"
        if let user { path += "?ckAPIToken=\(Self.escape(user.apiToken))&ckWebAuthToken=\(Self.escape(user.webAuthToken))" }
        guard let url = URL(string: baseURL + path) else { throw ImportError("--source-url \(baseURL) is not a URL; use e.g. https://api.apple-cloudkit.com") }
        let bytes = body?.serializedData ?? Data()
        var backoff = Duration.seconds(1)
        for attempt in 1...attempts {
            try await pacer.waitTurn()
            var request = URLRequest(url: url)
            request.httpMethod = body == nil ? "GET" : "POST"
            if body != nil {
                request.httpBody = bytes
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if user == nil {
                for (name, value) in try signer.headers(body: bytes, path: path) { request.setValue(value, forHTTPHeaderField: name) }
            }
            let data: Data
            let response: HTTPURLResponse
            do {
                let (answer, reply) = try await session.data(for: request)
                guard let http = reply as? HTTPURLResponse else { throw ImportError("the source at \(baseURL) did not answer over HTTP") }
                (data, response) = (answer, http)
            } catch let error as ImportError {
                throw error
            } catch {
                if attempt == attempts { throw ImportError("cannot reach the source at \(baseURL) (\(error.localizedDescription)); check --source-url and the network") }
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(30))
                continue
            }
            let json = (try? JSONValue.parse(data)) ?? .null
            if response.statusCode == 200 { return json }
            let code = json["serverErrorCode"]?.stringValue ?? ""
            let reason = json["reason"]?.stringValue ?? String(decoding: data.prefix(200), as: UTF8.self)
            if Self.isRetryable(status: response.statusCode, code: code), attempt < attempts {
                let delay = Self.retryDelay(json: json, header: response.value(forHTTPHeaderField: "Retry-After")) ?? backoff
                Console.error("import: the source answered \(operation) with \(code.isEmpty ? "HTTP \(response.statusCode)" : code); retrying in \(delay)")
                await pacer.holdOff(delay)
                backoff = min(backoff * 2, .seconds(30))
                continue
            }
            throw SourceRefusal(status: response.statusCode, code: code, reason: reason, operation: operation, client: self, byUser: user != nil)
        }
        throw ImportError("the source kept asking to retry \(operation); try again later or lower --max-requests-per-second")
    }

    /// A query parameter's value, percent-encoded (web auth tokens hold `+`, `/` and `=`).
    static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    static func isRetryable(status: Int, code: String) -> Bool {
        status == 429 || status == 503 || code == "THROTTLED" || code == "TRY_AGAIN_LATER" || code == "ZONE_BUSY"
    }

    /// The wait the source asked for: the body's `retryAfter` or the `Retry-After` header, in seconds.
    static func retryDelay(json: JSONValue, header: String?) -> Duration? {
        let seconds = json["retryAfter"]?.doubleValue ?? header.flatMap(Double.init)
        return seconds.map { .milliseconds(Int64(max($0, 0) * 1000)) }
    }

    /// Downloads an asset's bytes into a new file in `folder`; answers the file, its SHA-256 (hex) and size.
    func download(_ address: String, into folder: String) async throws -> (file: URL, checksum: String, size: Int64) {
        // Apple's download URLs leave the file name to the client: `${f}`.
        let resolved = address.replacingOccurrences(of: "${f}", with: "asset")
        guard let url = URL(string: resolved) else { throw ImportError("the source gave the asset download URL '\(address.prefix(80))', which is not a URL") }
        var backoff = Duration.seconds(1)
        for attempt in 1...attempts {
            try await pacer.waitTurn()
            do {
                let (temporary, reply) = try await session.download(from: url)
                let status = (reply as? HTTPURLResponse)?.statusCode ?? 0
                guard status == 200 else {
                    try? FileManager.default.removeItem(at: temporary)
                    if Self.isRetryable(status: status, code: ""), attempt < attempts {
                        try await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, .seconds(30))
                        continue
                    }
                    throw ImportError("the source answered HTTP \(status) to an asset download; the asset's URL may have expired: run the import again")
                }
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let file = URL(fileURLWithPath: folder).appendingPathComponent("import-\(UUID().uuidString)")
                try FileManager.default.moveItem(at: temporary, to: file)
                let (checksum, size) = try Self.sha256(of: file)
                return (file, checksum, size)
            } catch let error as ImportError {
                throw error
            } catch {
                if attempt == attempts { throw ImportError("an asset download from the source failed (\(error.localizedDescription)); run the import again to resume") }
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
        throw ImportError("an asset download kept failing; run the import again to resume")
    }

    static func sha256(of file: URL) throws -> (String, Int64) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), size)
    }
}

/// A user whose private database is read: the source container's API token and their web auth token.
struct SourceUser: Sendable {
    let apiToken: String
    let webAuthToken: String
}

/// An answer from the source that is not a retry: said in terms of the flag to check.
struct SourceRefusal: Error, CustomStringConvertible {
    let status: Int
    let code: String
    let reason: String
    let operation: String
    let client: SourceClient
    /// The request carried a user's web auth token, not the key.
    var byUser = false

    var description: String {
        let source = "\(client.baseURL) (container \(client.container), \(client.environment))"
        switch code {
        case "AUTHENTICATION_FAILED" where byUser, "AUTHENTICATION_REQUIRED" where byUser:
            return "the source \(source) refused a web auth token or --api-token: \(reason). The token may have expired: get a new one for that user, and check --api-token is the source container's"
        case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED":
            return "the source \(source) refused the server-to-server key: \(reason). Check --key-id and --key-file name a key registered for --source-container"
        case "ACCESS_DENIED":
            return "the source \(source) denied \(operation): \(reason)"
        default:
            if status == 404 || code == "NOT_FOUND" {
                return "the source \(source) does not know this container or environment (\(reason)); check --source-container and --source-environment"
            }
            return "the source \(source) answered \(operation) with HTTP \(status) \(code): \(reason)"
        }
    }
}

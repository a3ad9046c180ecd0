import Foundation
import StratusModel
import Synchronization

/// Sends CKWS requests for one container: builds URLs and auth parameters, follows web auth
/// token rotation, retries transient failures, and turns error answers into `CKError`.
final class StratusClient: Sendable {
    let configuration: StratusConfiguration
    private let webAuthToken: Mutex<String?>
    /// The signed-in user (whose key encrypts values) and the fields known to be encrypted.
    let encryption: EncryptionState

    init(configuration: StratusConfiguration) {
        self.configuration = configuration
        self.encryption = EncryptionState(
            file: EncryptedFieldsFile(
                folder: configuration.encryptedFieldsFolder,
                containerIdentifier: configuration.containerIdentifier,
                environment: configuration.environment))
        self.webAuthToken = Mutex(configuration.webAuthToken)
    }

    /// The current web auth token (it changes with every answer that rotates it).
    var currentWebAuthToken: String? { webAuthToken.withLock { $0 } }

    func setWebAuthToken(_ token: String?) { webAuthToken.withLock { $0 = token } }

    /// Sends a database request: `POST {base}/database/1/{container}/{env}/{scope}/{path}`.
    /// Returns the JSON answer. An error answer that still lists per-item results (an atomic
    /// batch failure) is returned too, so the caller can report each item.
    func send(_ scope: CKDatabase.Scope, _ path: String, method: String = "POST", body: JSONValue? = nil) async throws(CKError) -> JSONValue {
        try await send(named: path, method: method, body: body) { self.url(scope, path) }
    }

    /// Sends a request to the URL `makeURL` builds (again for each attempt: the web auth token
    /// in it changes); `path` names the request in errors.
    func send(named path: String, method: String = "POST", body: JSONValue?, to makeURL: () -> URL) async throws(CKError) -> JSONValue {
        var attempt = 0
        while true {
            let timeout = try OperationContext.requestTimeout(before: path)
            let response = try await sendOnce(makeURL(), named: path, method: method, body: body, timeout: timeout)
            if let token = response.headers["x-apple-cloudkit-web-auth-token"] ?? response.headers["x-apple-cloudkit-session"] {
                setWebAuthToken(token)
            }
            let json = response.body.isEmpty ? JSONValue.object([:]) : (try? JSONValue.parse(response.body))
            if (200..<300).contains(response.status) {
                guard let json else { throw CKError(.serverResponseLost, "the server's answer to \(path) is not JSON") }
                return json
            }
            // An atomic batch failure still lists every item's outcome.
            if let json, json["records"]?.arrayValue != nil || json["zones"]?.arrayValue != nil { return json }
            guard let json, let error = CKError(errorDictionary: json) else {
                throw CKError(.serverRejectedRequest, "HTTP \(response.status) from \(path)")
            }
            if error.code == .requestRateLimited || error.code == .serviceUnavailable, attempt < configuration.maximumRetries {
                attempt += 1
                // A wait that would pass the operation's deadline ends at it (the next attempt then fails).
                let delay = min(
                    error.retryAfterSeconds ?? Double(attempt), configuration.maximumRetryDelay,
                    max(OperationContext.secondsLeft ?? .infinity, 0))
                try? await Task.sleep(nanoseconds: UInt64(max(delay, 0) * 1_000_000_000))
                continue
            }
            throw error
        }
    }

    private func sendOnce(_ url: URL, named path: String, method: String, body: JSONValue?, timeout: TimeInterval?) async throws(CKError)
        -> StratusHTTPResponse
    {
        let request = StratusHTTPRequest(
            method: method, url: url,
            headers: body == nil ? [:] : ["Content-Type": "application/json; charset=utf-8"],
            body: body?.serializedData, timeout: timeout)
        do {
            return try await configuration.transport.send(request)
        } catch let error as CKError {
            throw error
        } catch {
            if let expired = OperationContext.expiredError(path) { throw expired }
            throw CKError(.networkFailure, "could not reach \(configuration.serverURL.absoluteString): \(error.localizedDescription)")
        }
    }

    func url(_ scope: CKDatabase.Scope, _ path: String) -> URL {
        url("database", "\(scope.pathComponent)/\(path)")
    }

    /// `{base}/{service}/1/{container}/{environment}/{rest}` with the caller's credentials.
    func url(_ service: String, _ rest: String) -> URL {
        let c = configuration
        var base = c.serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var query = "ckAPIToken=\(Self.escape(c.apiToken))"
        if let token = currentWebAuthToken { query += "&ckWebAuthToken=\(Self.escape(token))" }
        let text = "\(base)/\(service)/1/\(Self.escape(c.containerIdentifier))/\(Self.escape(c.environment))/\(rest)?\(query)"
        // Every variable part is percent-encoded and `serverURL` is already a URL.
        return URL(string: text)!
    }

    /// Percent-encodes everything but unreserved characters (web auth tokens hold `+ / =`).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

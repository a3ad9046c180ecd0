import Foundation
import StratusModel
import Synchronization
import Testing

/// Every token, password and signature the live-server tests handed a server or got from one,
/// for the check that no server log holds one (`LiveFolder.remove` runs it on each server's
/// log). The live helpers record what passes through them: startup lines, credentials in paths,
/// JSON bodies both ways, secret environment variables and command output.
enum SecretLedger {
    private static let secrets = Mutex<Set<String>>([])

    /// JSON members whose values are credentials.
    static let secretKeys: Set<String> = ["webAuthToken", "ckWebAuthToken", "ckAPIToken", "password", "apiToken", "secret"]
    /// Query parameters that carry credentials.
    static let secretParameters = ["ckAPIToken", "ckWebAuthToken", "ckWebAuthTokenSignature", "ckSignature"]

    /// Records a secret as sent and as a careful client percent-encodes it. Short values are
    /// left out: they would match ordinary log text.
    static func record(_ secret: String?) {
        guard let secret, secret.count >= 12 else { return }
        secrets.withLock { set in
            set.insert(secret)
            set.insert(WebToken.escape(secret))
            if let decoded = secret.removingPercentEncoding { set.insert(decoded) }
        }
    }

    /// The credential parameters of a request path.
    static func recordCredentials(inPath path: String) {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, secretParameters.contains(parts[0]) { record(parts[1]) }
        }
    }

    /// Credential members anywhere in a JSON body.
    static func recordCredentials(in json: JSONValue?) {
        switch json {
        case .object(let members)?:
            for (key, value) in members {
                if secretKeys.contains(key), let text = value.stringValue { record(text) } else { recordCredentials(in: value) }
            }
        case .array(let elements)?:
            for element in elements { recordCredentials(in: element) }
        default:
            break
        }
    }

    /// Environment variables whose names say they hold a secret.
    static func recordSecrets(inEnvironment environment: [String: String]) {
        for (name, value) in environment where ["TOKEN", "SECRET", "PASSWORD"].contains(where: name.uppercased().contains) {
            record(value)
        }
    }

    /// Lines a command or server printed: a token printed alone, or after a label (`API token: …`).
    static func recordPrinted(_ lines: [String]) {
        for line in lines {
            if let json = try? JSONValue.parse(line) { recordCredentials(in: json); continue }
            // A token is one long word; paths and URLs (also long, and logged on purpose) are not tokens.
            let lastWord = line.split(separator: " ").last.map(String.init) ?? ""
            guard lastWord.count >= 32, !lastWord.hasPrefix("/"), !lastWord.contains("://") else { continue }
            if line.lowercased().contains("token") || !line.contains(" ") { record(lastWord) }
        }
    }

    /// Records a test issue for every recorded secret the log at `url` holds.
    static func checkLog(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let log = try? String(contentsOf: url, encoding: .utf8), !log.isEmpty else { return }
        let leaked = secrets.withLock { set in set.filter { log.contains($0) } }
        for secret in leaked {
            Issue.record("the server log \(url.lastPathComponent) holds a secret the tests used: \(secret.prefix(6))…", sourceLocation: sourceLocation)
        }
    }
}

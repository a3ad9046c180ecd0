import Crypto
import Foundation

/// What a server-to-server key signs (docs/protocol.md §2.3), in one place for the server that
/// checks signatures and the clients that make them (`stratus import`, tests):
/// `date:base64(sha256(body)):path`, with `:user` appended when the request acts as a user.
public enum ServerKeyMessage {
    public static func bodyHash(_ body: some DataProtocol) -> String {
        Data(SHA256.hash(data: body)).base64EncodedString()
    }

    /// - Parameters:
    ///   - date: the `X-Apple-CloudKit-Request-ISO8601Date` header as sent.
    ///   - pathAndQuery: the request target, with its query string.
    ///   - user: the `X-Stratus-Act-As-User` header, when there is one.
    public static func message(date: String, bodyHash: String, pathAndQuery: String, actingAs user: String? = nil) -> Data {
        Data("\(date):\(bodyHash):\(pathAndQuery)\(user.map { ":" + $0 } ?? "")".utf8)
    }
}

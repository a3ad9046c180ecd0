import Crypto
import Foundation
import StratusEngine

/// Signs requests with a server-to-server key the way CloudKit Web Services checks them: ECDSA
/// P-256 with SHA-256 over `date:bodyHash:path`, sent in the three `X-Apple-CloudKit-Request-*`
/// headers (docs/protocol.md §2.3).
struct ServerKeySigner: Sendable {
    let keyID: String
    let key: P256.Signing.PrivateKey

    /// Reads the private key PEM that `openssl ecparam -genkey` (SEC1) or a PKCS #8 export writes.
    init(keyID: String, keyFile: String) throws {
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw ImportError("cannot read --key-file \(keyFile); check the path")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        } catch {
            throw ImportError("--key-file \(keyFile) is not an ECDSA P-256 private key in PEM form; make one with `openssl ecparam -name prime256v1 -genkey -noout -out key.pem`")
        }
        guard !keyID.isEmpty else { throw ImportError("--key-id is empty; give the key ID the source shows for this key") }
        self.keyID = keyID
    }

    /// The headers for a request of `body` to `path` (the request target, with any query string).
    func headers(body: Data, path: String, now: Date = Date()) throws -> [String: String] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let date = formatter.string(from: now)
        let message = ServerKeyMessage.message(date: date, bodyHash: ServerKeyMessage.bodyHash(body), pathAndQuery: path)
        let signature = try key.signature(for: message)
        return [
            "X-Apple-CloudKit-Request-KeyID": keyID,
            "X-Apple-CloudKit-Request-ISO8601Date": date,
            "X-Apple-CloudKit-Request-SignatureV1": signature.derRepresentation.base64EncodedString(),
        ]
    }
}

/// A problem with the import's input or source, said in one line with what to do next.
struct ImportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Crypto
import Foundation
import StratusEngine

/// AWS Signature Version 4 for S3 requests (header form). Only what an S3-compatible blob store
/// needs: path-style URLs, no query parameters beyond what is passed in, the payload hash sent in
/// `x-amz-content-sha256` (for uploads, the blob's own SHA-256, which is already known).
package struct SignatureV4: Sendable {
    let accessKeyID: String
    /// Raw bytes: the key type is not `Sendable`.
    let secret: String
    /// Temporary credentials (STS) come with a session token, sent and signed as
    /// `x-amz-security-token`.
    let sessionToken: String?
    let region: String
    let service = "s3"

    package init(accessKeyID: String, secret: String, sessionToken: String? = nil, region: String) {
        self.accessKeyID = accessKeyID
        self.secret = secret
        self.sessionToken = sessionToken
        self.region = region
    }

    /// SHA-256 of the empty payload.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, `authorization`,
    /// the session token when there is one, and `extra` (signed too). `path` is the unencoded
    /// path; `query` is already canonical (names sorted, each name and value encoded).
    package func headers(
        method: String, host: String, path: String, query: String = "", payloadHash: String,
        extra: [String: String] = [:], date: Date = Date()
    ) -> [String: String] {
        let (stamp, day) = SignatureV4.timestamps(date)
        var signed: [String: String] = ["host": host, "x-amz-content-sha256": payloadHash, "x-amz-date": stamp]
        if let sessionToken { signed["x-amz-security-token"] = sessionToken }
        for (name, value) in extra { signed[name.lowercased()] = value.trimmingCharacters(in: .whitespaces) }
        let names = signed.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(signed[$0]!)\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [method, SignatureV4.encodePath(path), query, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, hexString(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secret)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = hexString(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        var result = signed
        result.removeValue(forKey: "host")
        result["authorization"] = "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return result
    }

    /// `20260102T030405Z` and `20260102`, in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let day = "\(c.year ?? 1970)\(two(c.month))\(two(c.day))"
        return ("\(day)T\(two(c.hour))\(two(c.minute))\(two(c.second))Z", day)
    }

    /// The path as SigV4 canonicalises it for S3 (and as the request sends it): every UTF-8 byte
    /// outside RFC 3986's unreserved set (`A–Z a–z 0–9 - . _ ~`) and `/` becomes `%XX` with
    /// upper-case hex, once (S3 is the one service that does not encode twice). A space is `%20`
    /// and `+` is `%2B`, never a form-style `+`; non-ASCII letters are encoded too, which
    /// `CharacterSet.alphanumerics` would have kept.
    package static func encodePath(_ path: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(path.utf8.count)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

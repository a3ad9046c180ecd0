import Crypto
import Foundation
import StratusEngine

/// AWS Signature Version 4 for S3 requests (header form). Only what an S3-compatible blob store
/// needs: path-style URLs, no query parameters beyond what is passed in, the payload hash sent in
/// `x-amz-content-sha256` (for uploads, the blob's own SHA-256, which is already known).
struct SignatureV4: Sendable {
    let accessKeyID: String
    /// Raw bytes: the key type is not `Sendable`.
    let secret: String
    let region: String
    let service = "s3"

    /// SHA-256 of the empty payload.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, `authorization`.
    func headers(
        method: String, host: String, path: String, query: String = "", payloadHash: String,
        extra: [String: String] = [:], date: Date = Date()
    ) -> [String: String] {
        let (stamp, day) = SignatureV4.timestamps(date)
        var signed: [String: String] = ["host": host, "x-amz-content-sha256": payloadHash, "x-amz-date": stamp]
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

    /// Percent-encodes each path segment as S3 expects (RFC 3986 unreserved characters kept).
    static func encodePath(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}

import Crypto
import Foundation
import StratusEngine
import StratusS3
import Testing

/// The S3 signer against the signature examples AWS publishes for S3 ("Examples: Signature
/// Calculations" in the Signature Version 4 chapter of the S3 API reference): the same key, date,
/// request and headers must give the same signature, byte for byte.
@Suite struct SignatureV4Tests {
    /// AWS's example credentials and date (Friday, 24 May 2013, 00:00:00 UTC).
    let signer = SignatureV4(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    let date = Date(timeIntervalSince1970: 1_369_353_600)
    let host = "examplebucket.s3.amazonaws.com"

    func signature(_ headers: [String: String]) -> String? {
        headers["authorization"]?.components(separatedBy: "Signature=").last
    }

    @Test func getObjectWithARange() {
        let headers = signer.headers(
            method: "GET", host: host, path: "/test.txt", payloadHash: SignatureV4.emptyPayloadHash,
            extra: ["Range": "bytes=0-9"], date: date)
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(
            headers["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    /// `$` in the key is percent-encoded in the canonical path.
    @Test func putObjectWithAnEncodedKeyAndExtraHeaders() {
        let payload = hexString(SHA256.hash(data: Data("Welcome to Amazon S3.".utf8)))
        #expect(payload == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = signer.headers(
            method: "PUT", host: host, path: "/test$file.text", payloadHash: payload,
            extra: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"], date: date)
        #expect(signature(headers) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
        #expect(headers["authorization"]?.contains("SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,") == true)
    }

    @Test func getBucketWithQueryParameters() {
        let lifecycle = signer.headers(
            method: "GET", host: host, path: "/", query: "lifecycle=", payloadHash: SignatureV4.emptyPayloadHash, date: date)
        #expect(signature(lifecycle) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        let list = signer.headers(
            method: "GET", host: host, path: "/", query: "max-keys=2&prefix=J", payloadHash: SignatureV4.emptyPayloadHash,
            date: date)
        #expect(signature(list) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    /// Temporary credentials sign their session token as `x-amz-security-token` and send it.
    @Test func aSessionTokenIsSentAndSigned() {
        let temporary = SignatureV4(
            accessKeyID: "ASIAEXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", sessionToken: "token/with+chars=",
            region: "us-east-1")
        let headers = temporary.headers(
            method: "GET", host: host, path: "/test.txt", payloadHash: SignatureV4.emptyPayloadHash, date: date)
        #expect(headers["x-amz-security-token"] == "token/with+chars=")
        #expect(headers["authorization"]?.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") == true)
        #expect(signature(headers) != signature(signer.headers(method: "GET", host: host, path: "/test.txt", payloadHash: SignatureV4.emptyPayloadHash, date: date)))
    }

    /// RFC 3986's unreserved characters and `/` stay; everything else is `%XX` of its UTF-8 bytes,
    /// upper-case, once: a space is `%20` (not `+`), `+` is `%2B`, non-ASCII letters are encoded.
    @Test func pathsAreEncodedAsSigV4Requires() {
        #expect(SignatureV4.encodePath("/bucket/AZaz09-._~") == "/bucket/AZaz09-._~")
        #expect(SignatureV4.encodePath("/bucket/a b+c") == "/bucket/a%20b%2Bc")
        #expect(SignatureV4.encodePath("/bucket/é/日本") == "/bucket/%C3%A9/%E6%97%A5%E6%9C%AC")
        #expect(SignatureV4.encodePath("/bucket/%2F=&?#") == "/bucket/%252F%3D%26%3F%23")
    }
}

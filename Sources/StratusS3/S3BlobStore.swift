import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusEngine

/// Where an S3-compatible bucket is and how to sign for it.
public struct S3Configuration: Sendable {
    /// Base URL of the service, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`.
    public var endpoint: URL
    public var bucket: String
    public var region: String
    public var accessKeyID: String
    public var secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`), nil for long-term keys.
    public var sessionToken: String?
    /// Key prefix of every blob (`blobs/sha256/abcd…`).
    public var prefix: String

    public init(
        endpoint: URL, bucket: String, region: String = "us-east-1", accessKeyID: String, secretAccessKey: String,
        sessionToken: String? = nil, prefix: String = "blobs/"
    ) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.prefix = prefix
    }
}

/// Blobs in an S3-compatible bucket (path-style requests, Signature V4), streamed both ways
/// through async-http-client: an upload is sent from the spooled file in 1 MB pieces, a download
/// is read from the response as it arrives. A PUT is atomic in S3, so a blob is whole or absent.
public struct S3BlobStore: BlobStore {
    public let configuration: S3Configuration
    let signer: SignatureV4
    let client: HTTPClient

    public init(configuration: S3Configuration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.signer = SignatureV4(
            accessKeyID: configuration.accessKeyID, secret: configuration.secretAccessKey,
            sessionToken: configuration.sessionToken, region: configuration.region)
        self.client = client
    }

    var host: String {
        let base = configuration.endpoint
        return base.port.map { "\(base.host ?? ""):\($0)" } ?? (base.host ?? "")
    }

    func key(_ checksum: String) -> String { "\(configuration.prefix)sha256/\(checksum)" }

    /// A signed request for `/{bucket}/{key}` (or the bucket itself when `key` is nil).
    func request(
        _ method: HTTPMethod, key: String?, payloadHash: String = SignatureV4.emptyPayloadHash,
        extra: [String: String] = [:]
    ) -> HTTPClientRequest {
        var path = "/\(configuration.bucket)"
        if let key { path += "/\(key)" }
        var base = configuration.endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: base + SignatureV4.encodePath(path))
        request.method = method
        // The signer answers every header to send: the extras (signed too) and its own.
        for (name, value) in signer.headers(method: method.rawValue, host: host, path: path, payloadHash: payloadHash, extra: extra) {
            request.headers.add(name: name, value: value)
        }
        return request
    }

    /// Creates the bucket unless it exists (for first start and tests).
    public func createBucketIfMissing() async throws {
        let head = try await client.execute(request(.HEAD, key: nil), timeout: .seconds(30))
        _ = try await head.body.collect(upTo: 64 * 1024)
        if head.status == .ok { return }
        let created = try await client.execute(request(.PUT, key: nil), timeout: .seconds(30))
        let body = try await created.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(created.status.code) else {
            throw BlobStoreError("cannot create bucket \(configuration.bucket): HTTP \(created.status.code) \(String(buffer: body).prefix(300)); check the S3 endpoint and credentials")
        }
    }

    public func put(checksum: String, size: Int64, file: URL) async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        var request = request(
            .PUT, key: key(checksum), payloadHash: checksum,
            extra: ["content-type": "application/octet-stream"])
        request.body = .stream(try FileChunks(file: file), length: .known(size))
        let response = try await client.execute(request, timeout: .seconds(3600))
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw BlobStoreError("S3 PUT of blob \(checksum.prefix(12)) answered HTTP \(response.status.code): \(String(buffer: body).prefix(300))")
        }
    }

    public func contains(checksum: String) async throws -> Bool {
        let response = try await client.execute(request(.HEAD, key: key(checksum)), timeout: .seconds(30))
        // Every response body is drained, even an empty one, so the connection goes back to the pool.
        _ = try await response.body.collect(upTo: 64 * 1024)
        switch response.status.code {
        case 200: return true
        case 404: return false
        default: throw BlobStoreError("S3 HEAD of blob \(checksum.prefix(12)) answered HTTP \(response.status.code)")
        }
    }

    public func open(checksum: String, range: Range<Int64>) async throws -> (any BlobReader)? {
        if range.isEmpty {
            return try await contains(checksum: checksum) ? EmptyBlobReader() : nil
        }
        let wanted = "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        let response = try await client.execute(request(.GET, key: key(checksum), extra: ["range": wanted]), timeout: .seconds(3600))
        switch response.status.code {
        case 200, 206: return S3BlobReader(body: response.body)
        case 404:
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return nil
        default:
            let body = try await response.body.collect(upTo: 64 * 1024)
            throw BlobStoreError("S3 GET of blob \(checksum.prefix(12)) answered HTTP \(response.status.code): \(String(buffer: body).prefix(300))")
        }
    }

    public func delete(checksum: String) async throws {
        let response = try await client.execute(request(.DELETE, key: key(checksum)), timeout: .seconds(30))
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) || response.status.code == 404 else {
            throw BlobStoreError("S3 DELETE of blob \(checksum.prefix(12)) answered HTTP \(response.status.code)")
        }
    }
}

/// The chunks of an S3 GET response body as they arrive.
final class S3BlobReader: BlobReader, @unchecked Sendable {
    // @unchecked Sendable: the response body's iterator is not Sendable. A reader belongs to the
    // one response writer that pulls it chunk after chunk, never from two tasks at once.
    private var iterator: HTTPClientResponse.Body.AsyncIterator?

    init(body: HTTPClientResponse.Body) {
        iterator = body.makeAsyncIterator()
    }

    func next() async throws -> [UInt8]? {
        guard let chunk = try await iterator?.next() else {
            iterator = nil
            return nil
        }
        return Array(chunk.readableBytesView)
    }

    func close() async {
        iterator = nil
    }
}

final class EmptyBlobReader: BlobReader {
    func next() async throws -> [UInt8]? { nil }
    func close() async {}
}

/// A file read in 1 MB pieces, as the body of an upload.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    init(file: URL) throws {
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw BlobStoreError("cannot read \(file.path)") }
        self.file = file
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else {
                try? handle?.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: FileHandle(forReadingAtPath: file.path)) }
}

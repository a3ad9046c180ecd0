import Foundation
import Hummingbird
import Logging
import NIOCore
import StratusEngine
import StratusModel

/// The asset hosts of docs/protocol.md §8, served by this server under `/assets/1/`:
/// - `POST /assets/1/upload/{token}`: the raw bytes of one file; the URL is the capability.
/// - `GET /assets/1/download/{token}/{file name}`: the bytes, with Range and ETag support.
/// Neither takes CloudKit credentials. Both stream: memory does not grow with the file.
struct AssetRoutes: Sendable {
    let engine: Engine
    let assets: AssetConfiguration
    /// Counts asset bytes in and out when metrics are on.
    let metrics: OperationsInstruments?
    let logger: Logger

    var spool: UploadSpool { UploadSpool(folder: assets.spoolFolder) }

    func upload(_ request: Request, token: String) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        do {
            let slot = try engine.openUploadToken(token)
            // The declared length is checked against the size limit only: the quota needs the
            // checksum (bytes the database already holds cost nothing).
            if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > engine.limits.maximumAssetBytes {
                try await engine.checkUploadAllowed(slot, size: declared)
            }
            let spooled = try await spool.receive(request.body, maximumBytes: engine.limits.maximumAssetBytes)
            metrics?.assetBytes(received: spooled.size)
            defer { try? FileManager.default.removeItem(at: spooled.file) }
            let answer = try await assets.store(spooled, for: slot, engine: engine)
            return CloudKitResponse.json(answer, uuid: uuid)
        } catch {
            return failure(error, request: request, uuid: uuid)
        }
    }

    func download(_ request: Request, token: String) async -> Response {
        let uuid = CloudKitResponse.newRequestUUID()
        do {
            let (checksum, size) = try engine.openDownloadToken(token)
            let etag = "\"\(checksum)\""
            var headers: HTTPFields = [.eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, max-age=3600"]
            if let match = request.headers[.ifNoneMatch], match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
                return Response(status: .notModified, headers: headers)
            }
            var status = HTTPResponse.Status.ok
            var range: Range<Int64> = 0..<size
            switch ByteRange(header: request.headers[.range], size: size) {
            case .whole: break
            case .partial(let wanted):
                status = .partialContent
                range = wanted
                headers[.contentRange] = "bytes \(wanted.lowerBound)-\(wanted.upperBound - 1)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            guard let reader = try await assets.blobs.open(checksum: checksum, range: range) else {
                throw CloudKitError(.notFound, "this asset is no longer stored; fetch the record again")
            }
            headers[.contentType] = "application/octet-stream"
            let length = Int(range.count)
            let metrics = self.metrics
            return Response(
                status: status, headers: headers,
                body: ResponseBody(contentLength: length) { writer in
                    var sent = 0
                    defer { metrics?.assetBytes(sent: Int64(sent)) }
                    do {
                        while let chunk = try await reader.next() {
                            sent += chunk.count
                            try await writer.write(ByteBuffer(bytes: chunk))
                        }
                    } catch {
                        await reader.close()
                        throw error
                    }
                    await reader.close()
                    guard sent == length else { throw BlobStoreError("blob \(checksum) ended after \(sent) of \(length) bytes") }
                    try await writer.finish(nil)
                })
        } catch {
            return failure(error, request: request, uuid: uuid)
        }
    }

    func failure(_ error: any Error, request: Request, uuid: String) -> Response {
        if let error = error as? CloudKitError { return CloudKitResponse.error(error, uuid: uuid) }
        logger.error(
            "asset request failed",
            metadata: [
                "uuid": .string(uuid), "error": .string(String(reflecting: error)),
            ])
        return CloudKitResponse.error(CloudKitError(.internalError, "the server could not store or read this asset; report request \(uuid) to the server's operator"), uuid: uuid)
    }
}

extension Router<BasicRequestContext> {
    /// Adds the asset upload and download routes; without an asset configuration they answer
    /// that this server does not store assets.
    func addAssetRoutes(engine: Engine, assets: AssetConfiguration?, metrics: OperationsInstruments? = nil, logger: Logger) {
        guard let assets else { return }
        let routes = AssetRoutes(engine: engine, assets: assets, metrics: metrics, logger: logger)
        post("/assets/1/upload/:token") { request, context in
            await routes.upload(request, token: context.parameters.get("token") ?? "")
        }
        get("/assets/1/download/:token/:name") { request, context in
            await routes.download(request, token: context.parameters.get("token") ?? "")
        }
    }
}

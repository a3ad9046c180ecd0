import HTTPTypes
import Hummingbird
import StratusEngine

/// An asset's bytes for the console. Records are app-user input, so the bytes are served so
/// that they cannot run script in the console's origin: an image type only when the bytes begin
/// like a PNG, JPEG, GIF or WebP (never SVG, never the uploader's word), `nosniff`, a sandboxing
/// policy, and a download (attachment) for everything else.
extension ConsoleScreens {
    static let largestServedAsset: Int64 = 64 * 1024 * 1024

    func asset(_ console: ConsoleRequest, token: String) async throws -> Response {
        guard let assets else { throw CloudKitError(.notFound, "this server keeps no assets") }
        let (checksum, size) = try engine.openDownloadToken(ConsoleURL.decodeLastComponent("/" + token))
        guard size <= Self.largestServedAsset else {
            throw CloudKitError.badRequest("this asset is \(size) bytes; download it through the API instead")
        }
        guard let reader = try await assets.blobs.open(checksum: checksum, range: 0..<size) else {
            throw CloudKitError(.notFound, "this asset is no longer stored; reload the record")
        }
        var bytes: [UInt8] = []
        do {
            while let chunk = try await reader.next() { bytes += chunk }
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
        var headers = ConsoleResponse.securityHeaders()
        headers[.contentSecurityPolicy] = "sandbox; default-src 'none'"
        if let image = ImageSniffer.contentType(bytes) {
            headers[.contentType] = image
            headers[.contentDisposition] = "inline"
        } else {
            headers[.contentType] = "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"asset.bin\""
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// The image formats a browser shows without running anything, told by their first bytes.
enum ImageSniffer {
    static func contentType(_ head: [UInt8]) -> String? {
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}

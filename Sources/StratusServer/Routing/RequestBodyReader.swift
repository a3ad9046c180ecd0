import Hummingbird
import StratusEngine
import StratusModel

/// Reads a request body as JSON, whatever its Content-Type (clients send `text/plain`, or none).
struct RequestBodyReader: Sendable {
    var maximumBytes: Int

    /// Collects the body up to `maximumBytes`.
    func bytes(from body: RequestBody) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            if bytes.count + chunk.readableBytes > maximumBytes {
                throw RequestBodyReader.tooLarge(maximumBytes: maximumBytes)
            }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    static func tooLarge(maximumBytes: Int) -> CloudKitError {
        .badRequest("the body is larger than \(maximumBytes) bytes (\(maximumBytes / (1024 * 1024)) MB), the limit of this server; split the request")
    }

    /// Collects the body and parses it; an empty body or bad JSON is a BAD_REQUEST that says what
    /// to send instead.
    func json(from body: RequestBody) async throws -> JSONValue {
        try RequestBodyReader.parse(try await bytes(from: body))
    }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        if bytes.allSatisfy(RequestBodyReader.isWhitespace) {
            throw CloudKitError.badRequest("the body is empty; send a JSON object")
        }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw CloudKitError.badRequest(error.description)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

import Foundation
import StratusEngine

/// A `multipart/form-data` body as browsers send a form with a file input: its text fields in
/// order, and its files by field name. Only what a console form sends is understood: parts with
/// `Content-Disposition: form-data; name="…"[; filename="…"]`.
struct MultipartForm: Sendable {
    struct File: Sendable {
        var filename: String
        var bytes: [UInt8]
    }

    var fields: [(String, String)] = []
    var files: [String: File] = [:]

    /// The boundary of a `multipart/form-data; boundary=…` content type, nil for any other type.
    static func boundary(ofContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            let value = part.dropFirst("boundary=".count)
            let boundary = value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? String(value.dropFirst().dropLast()) : String(value)
            return boundary.isEmpty ? nil : boundary
        }
        return nil
    }

    init(body: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        var position = try Self.index(of: delimiter, in: body, from: 0)
        while true {
            position += delimiter.count
            // "--" after a delimiter ends the body.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { return }
            position = try Self.skipLineBreak(body, position)
            let headerEnd = try Self.index(of: Array("\r\n\r\n".utf8), in: body, from: position)
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            let next = try Self.index(of: Array("\r\n".utf8) + delimiter, in: body, from: contentStart)
            let content = Array(body[contentStart..<next])
            let disposition = Self.disposition(headers)
            if let name = disposition["name"] {
                if let filename = disposition["filename"] {
                    files[name] = File(filename: filename, bytes: content)
                } else {
                    fields.append((name, String(decoding: content, as: UTF8.self)))
                }
            }
            position = next + 2
        }
    }

    static func skipLineBreak(_ body: [UInt8], _ position: Int) throws -> Int {
        guard body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A else { throw malformed }
        return position + 2
    }

    /// The parameters of a part's `Content-Disposition` header (`name`, `filename`).
    static func disposition(_ headers: String) -> [String: String] {
        let line = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-disposition:") } ?? ""
        var parameters: [String: String] = [:]
        for parameter in line.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            parameters[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] = value
        }
        return parameters
    }

    static func index(of needle: [UInt8], in haystack: [UInt8], from start: Int) throws -> Int {
        guard !needle.isEmpty, haystack.count >= needle.count else { throw malformed }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0] && haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        throw malformed
    }

    static let malformed = CloudKitError.badRequest("the form's multipart body is malformed; send it again from the console page")
}

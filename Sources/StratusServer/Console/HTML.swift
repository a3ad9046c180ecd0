/// Markup that is safe to send. Interpolating a `String` (or anything else that is not `HTML`)
/// escapes it; only `HTML` values go in as they are. Every console page is built from these, so
/// text a record holds (app-user input) can only ever become text on the page.
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var text: String

    init(stringLiteral literal: String) { text = literal }

    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

    /// Markup the code itself wrote (never pass user input here).
    init(trusted: String) { text = trusted }

    var description: String { text }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.text + rhs.text) }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: String) { text += literal }

        mutating func appendInterpolation(_ markup: HTML) { text += markup.text }

        mutating func appendInterpolation(_ markups: [HTML]) {
            for markup in markups { text += markup.text }
        }

        mutating func appendInterpolation(_ value: some CustomStringConvertible) { text += HTML.escape(value.description) }
    }

    /// Escapes the five characters that can end text or an attribute value (attributes are
    /// always written in double quotes).
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    static func join(_ parts: [HTML], separator: HTML = "") -> HTML {
        HTML(trusted: parts.map(\.text).joined(separator: separator.text))
    }
}

/// A link target inside the console: path plus query parameters, percent-encoded. Only ever
/// points at the console itself, so no value a record holds can become a `javascript:` link.
struct ConsoleURL: CustomStringConvertible, Sendable {
    var path: String
    var query: [(String, String)] = []

    init(_ path: String, _ query: [(String, String)] = []) {
        self.path = path
        self.query = query.filter { !$0.1.isEmpty }
    }

    var description: String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(ConsoleURL.encode($0.0))=\(ConsoleURL.encode($0.1))" }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}

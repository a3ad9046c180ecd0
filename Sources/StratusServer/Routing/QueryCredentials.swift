import Foundation

/// The credentials a CKWS request carries in its query string: `ckAPIToken`, and
/// `ckWebAuthToken` or its older synonym `ckSession`.
///
/// Decoding is lenient on purpose. Web auth tokens contain `+ / =`; the protocol asks clients to
/// percent-encode them, but some escape only `+` and others form-encode. The raw query is split
/// here (not with a form decoder) so a literal `+` stays `+`, `%XX` is decoded, a malformed
/// escape is kept as written, and a space (a `+` that went through form decoding on the client's
/// side and came back as `%20`) is restored to `+`: tokens never contain spaces.
struct QueryCredentials: Sendable, Equatable {
    var apiToken: String?
    var webAuthToken: String?

    init(apiToken: String?, webAuthToken: String?) {
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
    }

    init(rawQuery: String?) {
        var apiToken: String?
        var webAuthToken: String?
        var session: String?
        for pair in (rawQuery ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = QueryCredentials.decode(parts[0])
            let value = parts.count > 1 ? QueryCredentials.decode(parts[1], spaceAs: UInt8(ascii: "+")) : ""
            switch key {
            case "ckAPIToken": apiToken = apiToken ?? value
            case "ckWebAuthToken": webAuthToken = webAuthToken ?? value
            case "ckSession": session = session ?? value
            default: continue
            }
        }
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        self.webAuthToken = (webAuthToken ?? session).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Percent-decodes `text`, keeping `+` literal and any malformed escape as written; a decoded
    /// space becomes `spaceAs` when given. Runs once per request, so it stays off Foundation.
    static func decode(_ text: Substring, spaceAs: UInt8? = nil) -> String {
        if !text.utf8.contains(UInt8(ascii: "%")) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%"), index + 2 < source.count,
               let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) {
                let decoded = high << 4 | low
                bytes.append(decoded == UInt8(ascii: " ") ? spaceAs ?? decoded : decoded)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

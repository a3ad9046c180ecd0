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
        // Works on the query's bytes: only the three values it keeps become Strings (this runs
        // for every request).
        for pair in (rawQuery ?? "").utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let key = pair[..<(equals ?? pair.endIndex)]
            let value = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            switch CredentialKey(key) {
            case .apiToken where apiToken == nil: apiToken = QueryCredentials.decode(value, spaceAs: UInt8(ascii: "+"))
            case .webAuthToken where webAuthToken == nil: webAuthToken = QueryCredentials.decode(value, spaceAs: UInt8(ascii: "+"))
            case .session where session == nil: session = QueryCredentials.decode(value, spaceAs: UInt8(ascii: "+"))
            default: continue
            }
        }
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        self.webAuthToken = (webAuthToken ?? session).flatMap { $0.isEmpty ? nil : $0 }
    }

    private enum CredentialKey {
        case apiToken, webAuthToken, session

        init?(_ key: Substring.UTF8View) {
            // A percent-encoded key is decoded first; the usual plain key is compared in place.
            if key.contains(UInt8(ascii: "%")) {
                self.init(name: QueryCredentials.decode(key).utf8)
            } else {
                self.init(name: key)
            }
        }

        private init?<Name: Collection<UInt8>>(name: Name) {
            switch name.count {
            case 10 where name.elementsEqual("ckAPIToken".utf8): self = .apiToken
            case 14 where name.elementsEqual("ckWebAuthToken".utf8): self = .webAuthToken
            case 9 where name.elementsEqual("ckSession".utf8): self = .session
            default: return nil
            }
        }
    }

    /// Percent-decodes `text`, keeping `+` literal and any malformed escape as written; a decoded
    /// space becomes `spaceAs` when given.
    static func decode(_ text: Substring, spaceAs: UInt8? = nil) -> String {
        decode(text.utf8, spaceAs: spaceAs)
    }

    static func decode(_ text: Substring.UTF8View, spaceAs: UInt8? = nil) -> String {
        if !text.contains(UInt8(ascii: "%")) { return String(Substring(text)) }
        let source = Array(text)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%"), index + 2 < source.count,
                let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2])
            {
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

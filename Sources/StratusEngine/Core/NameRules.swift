import StratusModel

/// The naming rules of docs/protocol.md §11: what a record, zone, type or field may be called.
public enum NameRules {
    public static let maximumLength = 255

    /// Record names: ASCII, 1…255 characters, not starting with `_` (reserved for the system).
    public static func checkRecordName(_ name: String, path: String) throws(CloudKitError) {
        try checkASCII(name, what: "record name", path: path)
        if name.hasPrefix("_") {
            throw .badRequest("\(path): record name '\(name)' starts with '_', which is reserved for system records")
        }
    }

    /// Zone names: ASCII, 1…255 characters. `_defaultZone` is the only reserved name a client may use.
    public static func checkZoneName(_ name: String, path: String) throws(CloudKitError) {
        try checkASCII(name, what: "zone name", path: path)
    }

    /// Record types and field names: a letter, then letters, digits or `_`; at most 255.
    public static func checkIdentifier(_ name: String, what: String, path: String) throws(CloudKitError) {
        guard isIdentifier(name) else {
            throw .badRequest("\(path): \(what) '\(name.prefix(80))' is not valid; use a letter followed by letters, digits or '_' (at most 255)")
        }
    }

    public static func isIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumLength, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }
    }

    static func isLetter(_ byte: UInt8) -> Bool { (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) }

    package static func checkASCII(_ name: String, what: String, path: String) throws(CloudKitError) {
        if name.isEmpty { throw .badRequest("\(path): \(what) is empty") }
        let bytes = name.utf8
        if bytes.count > maximumLength {
            throw .badRequest("\(path): \(what) is \(bytes.count) characters long; the limit is \(maximumLength)")
        }
        if let bad = bytes.first(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw .badRequest("\(path): \(what) '\(name.prefix(80))' contains a non-printable or non-ASCII byte (0x\(String(bad, radix: 16)))")
        }
    }
}

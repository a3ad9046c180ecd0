/// Finds the members of a JSON object's text without parsing their values: each key with the
/// byte range of its value, so a caller can copy some members out verbatim.
public enum JSONMemberScanner {
    /// The members in text order; `nil` when the text is not one object or a key holds an escape
    /// (callers then parse instead). Values are skipped by bracket depth and string quoting only,
    /// so the text must be valid JSON.
    public static func members(of bytes: UnsafeBufferPointer<UInt8>) -> [(key: String, value: Range<Int>)]? {
        var index = skipSpace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipSpace(bytes, index + 1)
        var members: [(key: String, value: Range<Int>)] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return members }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let keyStart = index + 1
            guard let keyEnd = (keyStart..<bytes.count).first(where: { bytes[$0] == UInt8(ascii: "\"") || bytes[$0] == UInt8(ascii: "\\") }),
                bytes[keyEnd] == UInt8(ascii: "\"")
            else { return nil }
            let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[keyStart..<keyEnd]), as: UTF8.self)
            index = skipSpace(bytes, keyEnd + 1)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipSpace(bytes, index + 1)
            guard let valueEnd = endOfValue(bytes, valueStart) else { return nil }
            members.append((key, valueStart..<valueEnd))
            index = skipSpace(bytes, valueEnd)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return members }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, index + 1)
        }
        return nil
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
        return index
    }

    /// The index just after the value starting at `start`.
    private static func endOfValue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var depth = 0
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                if depth == 0 { return index + 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return index }
            default:
                break
            }
            index += 1
        }
        return depth == 0 && index > start ? index : nil
    }
}

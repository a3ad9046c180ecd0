/// Writes a JSON object straight into bytes, member by member, for responses where building a
/// `JSONValue` tree only to serialize it costs more than the writing (one per returned record).
/// Members come out in the order written; keys are literals (`StaticString`) except where a
/// member's name is data.
public struct JSONObjectWriter {
    public private(set) var bytes: [UInt8]
    /// Whether the object being written (the innermost open one) has no member yet.
    private var isEmpty = true

    public init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Keys are literals in the code that writes them: copied as they are, without an escape
    /// scan, so they must need no escaping (no quote, backslash or control character).
    private mutating func key(_ key: StaticString) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func key(_ key: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONValue.writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func write(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        value.write(into: &bytes, sortingKeys: false)
    }

    public mutating func write(_ key: StaticString, string: String) {
        self.key(key)
        JSONValue.writeString(string, into: &bytes)
    }

    public mutating func write(_ key: StaticString, integer: Int64) {
        self.key(key)
        JSONValue.writeInteger(integer, into: &bytes)
    }

    public mutating func write(_ key: StaticString, bool: Bool) {
        self.key(key)
        bytes.append(contentsOf: bool ? "true".utf8 : "false".utf8)
    }

    /// A member whose value is JSON text the caller vouches for, copied verbatim.
    public mutating func write(_ key: StaticString, verbatim text: String) {
        self.key(key)
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A member with a key only known at run time (escaped as needed) whose value is JSON text
    /// the caller vouches for, copied verbatim.
    public mutating func write(member key: String, verbatim text: UnsafeBufferPointer<UInt8>) {
        self.key(key)
        bytes.append(contentsOf: text)
    }

    /// A member with a key only known at run time (escaped as needed).
    public mutating func write(member key: String, _ value: JSONValue) {
        self.key(key)
        value.write(into: &bytes, sortingKeys: false)
    }

    /// Opens a member whose value is an object; members written until `endObject` go in it.
    public mutating func beginObject(_ key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "{"))
        isEmpty = true
    }

    /// Closes the object `beginObject` opened.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        isEmpty = false
    }

    /// Closes the object.
    public consuming func finish() -> RawJSON {
        bytes.append(UInt8(ascii: "}"))
        return RawJSON(trusting: bytes)
    }
}

/// JSON text a response already holds (a stored record's fields), carried as bytes: the
/// serializer copies it out verbatim and only code that reads into it pays for a parse.
///
/// Building a `JSONValue` tree from stored text and serializing it again was about 40% of a
/// 50-record query's server time; splicing the text skips both.
public struct RawJSON: Sendable {
    /// One complete JSON value in UTF-8.
    public let bytes: [UInt8]

    /// Wraps bytes the caller vouches are one valid JSON value; they are not checked (checking
    /// is the parse this type exists to avoid).
    public init(trusting bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value as a tree, parsed on each call; `null` if the bytes were not JSON after all.
    public var parsed: JSONValue { (try? JSONValue.parse(bytes)) ?? .null }
}

extension JSONValue {
    /// This value with raw JSON parsed into a tree; every other value unchanged. Readers go
    /// through it, so a raw value reads like the tree it stands for.
    public var resolved: JSONValue {
        if case .raw(let raw) = self { return raw.parsed }
        return self
    }
}

// Equality and hashing see raw JSON as the value it encodes, so a response that splices stored
// text equals the same response built as a tree.
extension JSONValue: Hashable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.raw(let left), .raw(let right)): return left.bytes == right.bytes || left.parsed == right.parsed
        case (.raw(let left), _): return left.parsed == rhs
        case (_, .raw(let right)): return lhs == right.parsed
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.int(let left), .int(let right)): return left == right
        case (.double(let left), .double(let right)): return left == right
        case (.string(let left), .string(let right)): return left == right
        case (.array(let left), .array(let right)): return left == right
        case (.object(let left), .object(let right)): return left == right
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .raw(let raw): raw.parsed.hash(into: &hasher)
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .int(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .array(let elements): hasher.combine(5); hasher.combine(elements)
        case .object(let members): hasher.combine(6); hasher.combine(members)
        }
    }
}

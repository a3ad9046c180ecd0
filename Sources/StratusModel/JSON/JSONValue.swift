import Foundation

/// A JSON document as a value.
///
/// Stratus parses request bodies itself instead of going through `JSONDecoder` because CloudKit's
/// wire format needs two things `JSONDecoder` hides: whether a number was written as an integer
/// (`5`) or a fraction (`5.0`) — that decides INT64 versus DOUBLE when the schema is inferred — and
/// the exact place a malformed body went wrong, so the error can name it.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// JSON text written out verbatim; reads see the value it encodes (see `RawJSON`).
    case raw(RawJSON)
}

extension JSONValue {
    /// The member named `key` when this is an object; `nil` otherwise or when absent.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = resolved { return members[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = resolved, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    public var isNull: Bool { if case .null = resolved { return true } else { return false } }

    public var stringValue: String? { if case .string(let s) = resolved { return s } else { return nil } }

    public var boolValue: Bool? {
        switch resolved {
        case .bool(let b): return b
        case .int(let i) where i == 0 || i == 1: return i == 1
        default: return nil
        }
    }

    /// The value as an integer: an integer literal, or a fraction with no fractional part.
    public var int64Value: Int64? {
        switch resolved {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    /// The value as a double; integers widen.
    public var doubleValue: Double? {
        switch resolved {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? { if case .array(let a) = resolved { return a } else { return nil } }

    public var objectValue: [String: JSONValue]? { if case .object(let o) = resolved { return o } else { return nil } }

    /// A short name of the JSON kind, for error messages ("expected a string, got an array").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        case .raw(let raw): return raw.parsed.kindName
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

/// A value bound to, or read from, a SQL statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return Int64(value)
        case .text(let text): return Int64(text)
        default: return nil
        }
    }

    public var real: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    public var text: String? {
        switch self {
        case .text(let value): return value
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .integer(let value): return String(value)
        default: return nil
        }
    }
}

/// One result row, columns in select-list order.
public struct SQLRow: Sendable {
    public var values: [SQLValue]

    public init(values: [SQLValue]) { self.values = values }

    public subscript(index: Int) -> SQLValue { index < values.count ? values[index] : .null }
}

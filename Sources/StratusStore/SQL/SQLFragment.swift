/// SQL text with its bound values. Values go in through interpolation (`\(bind: x)`) and are
/// never spliced into the text; text that is not a bind goes through a name that says so
/// (`\(unsafeRaw:)`), used only for identifiers and literals the store itself validated.
public struct SQLFragment: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// SQL with `?` placeholders; a dialect renumbers them if it needs to.
    public var text: String
    public var binds: [SQLValue]

    public init(text: String = "", binds: [SQLValue] = []) {
        self.text = text
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.text = value
        self.binds = []
    }

    public init(stringInterpolation: StringInterpolation) {
        self.text = stringInterpolation.text
        self.binds = stringInterpolation.binds
    }

    /// The SQL text only: bound values are never logged.
    public var description: String { text }

    public mutating func append(_ other: SQLFragment) {
        text += other.text
        binds += other.binds
    }

    public static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Joins fragments with a separator (`AND`, `, `).
    public static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (position, part) in parts.enumerated() {
            if position > 0 { result.text += separator }
            result.append(part)
        }
        return result
    }

    /// A parenthesised, comma-separated list of binds: `(?, ?, ?)`.
    public static func bindList(_ values: [SQLValue]) -> SQLFragment {
        SQLFragment(text: "(" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")", binds: values)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var binds: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 2)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }

        public mutating func appendInterpolation(bind value: SQLValue) {
            text += "?"
            binds.append(value)
        }

        public mutating func appendInterpolation(bind value: String) { appendInterpolation(bind: .text(value)) }

        public mutating func appendInterpolation(bind value: Int64) { appendInterpolation(bind: .integer(value)) }

        public mutating func appendInterpolation(bind value: Int) { appendInterpolation(bind: .integer(Int64(value))) }

        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            text += fragment.text
            binds += fragment.binds
        }

        /// Text spliced as is. Only for identifiers and literals validated by the caller.
        public mutating func appendInterpolation(unsafeRaw text: String) { self.text += text }
    }
}

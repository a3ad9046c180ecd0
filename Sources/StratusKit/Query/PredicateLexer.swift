import Foundation

/// One token of an `NSPredicate` format string.
enum PredicateToken: Equatable {
    case identifier(String)
    case string(String)
    case integer(Int64)
    case real(Double)
    /// A format specifier: `@`, `K`, `d`, `f`, … (without `%`).
    case specifier(Character)
    case op(String)
    case punct(Character)
    case modifier(String)
    case end
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    private let chars: [Character]
    private var index = 0
    private let format: String

    init(_ format: String) {
        self.format = format
        self.chars = Array(format)
    }

    mutating func tokenize() throws(CKError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token == .end { return tokens }
        }
    }

    private func fail(_ message: String) -> CKError {
        PredicateError.invalid("\(message) in predicate format '\(format)'")
    }

    private mutating func next() throws(CKError) -> PredicateToken {
        while index < chars.count, chars[index].isWhitespace { index += 1 }
        guard index < chars.count else { return .end }
        let c = chars[index]
        if c == "'" || c == "\"" { return .string(try quoted(c)) }
        if c == "%" {
            index += 1
            var spec = ""
            while index < chars.count, "lhqzjt".contains(chars[index]) { index += 1; spec.append("l") }
            guard index < chars.count else { throw fail("a '%' at the end") }
            let letter = chars[index]
            index += 1
            guard "@Kdiufgsx".contains(letter) else { throw fail("the format specifier '%\(spec)\(letter)' is not supported") }
            return .specifier(letter)
        }
        if c.isNumber || (c == "-" && index + 1 < chars.count && chars[index + 1].isNumber) {
            return try number()
        }
        if c.isLetter || c == "_" || c == "$" || c == "#" || c == "@" {
            var word = ""
            while index < chars.count, chars[index].isLetter || chars[index].isNumber || "_$#@.:".contains(chars[index]) {
                word.append(chars[index])
                index += 1
            }
            return .identifier(word)
        }
        if c == "[" {
            var word = ""
            index += 1
            while index < chars.count, chars[index] != "]" { word.append(chars[index]); index += 1 }
            guard index < chars.count else { throw fail("an unclosed '['") }
            index += 1
            return .modifier(word.lowercased())
        }
        for op in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "=", "<", ">", "!"] where matches(op) {
            index += op.count
            return .op(op)
        }
        if "(){},".contains(c) {
            index += 1
            return .punct(c)
        }
        throw fail("the character '\(c)' is not understood")
    }

    private func matches(_ text: String) -> Bool {
        var i = index
        for ch in text {
            guard i < chars.count, chars[i] == ch else { return false }
            i += 1
        }
        return true
    }

    private mutating func quoted(_ quote: Character) throws(CKError) -> String {
        index += 1
        var text = ""
        while index < chars.count, chars[index] != quote {
            if chars[index] == "\\", index + 1 < chars.count {
                index += 1
                switch chars[index] {
                case "n": text.append("\n")
                case "t": text.append("\t")
                default: text.append(chars[index])
                }
            } else {
                text.append(chars[index])
            }
            index += 1
        }
        guard index < chars.count else { throw fail("an unterminated string") }
        index += 1
        return text
    }

    private mutating func number() throws(CKError) -> PredicateToken {
        var text = ""
        if chars[index] == "-" { text.append("-"); index += 1 }
        while index < chars.count, chars[index].isNumber || chars[index] == "." || chars[index] == "e" || chars[index] == "E" {
            text.append(chars[index])
            index += 1
        }
        if let integer = Int64(text) { return .integer(integer) }
        if let real = Double(text) { return .real(real) }
        throw fail("the number '\(text)' is malformed")
    }
}

/// Builds the errors predicate handling throws: `invalidArguments`, as Apple's SDK does.
enum PredicateError {
    static func invalid(_ message: String) -> CKError {
        CKError(.invalidArguments, message)
    }
}

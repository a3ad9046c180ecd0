import Foundation

/// Parses an `NSPredicate` format string with its arguments into a ``PredicateNode``.
///
/// Grammar (the part of Apple's predicate language CloudKit can use, plus the parts it refuses,
/// so that the refusal can name them):
///
///     predicate  := andExpr (("OR" | "||") andExpr)*
///     andExpr    := unary (("AND" | "&&") unary)*
///     unary      := ("NOT" | "!") unary | "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
///     comparison := [ANY | SOME | ALL | NONE] expr operator[modifiers] expr
///     expr       := key | %K | %@ | %d | %f | literal | "{" expr, … "}" | function "(" expr, … ")" | SELF
struct PredicateParser {
    private var tokens: [PredicateToken]
    private var position = 0
    private var arguments: [Any]
    private var argumentIndex = 0
    private let format: String

    init(format: String, arguments: [Any]) throws(CKError) {
        var lexer = PredicateLexer(format)
        self.tokens = try lexer.tokenize()
        self.arguments = arguments
        self.format = format
    }

    mutating func parse() throws(CKError) -> PredicateNode {
        let node = try parseOr()
        guard peek == .end else { throw fail("unexpected \(describe(peek)) after a complete predicate") }
        guard argumentIndex == arguments.count else {
            throw fail("\(arguments.count) arguments given, the format uses \(argumentIndex)")
        }
        return node
    }

    private var peek: PredicateToken { tokens[position] }

    private mutating func advance() -> PredicateToken {
        let token = tokens[position]
        if token != .end { position += 1 }
        return token
    }

    private func fail(_ message: String) -> CKError {
        PredicateError.invalid("\(message) in predicate format '\(format)'")
    }

    private func describe(_ token: PredicateToken) -> String {
        switch token {
        case .identifier(let w): return "'\(w)'"
        case .string(let s): return "'\"\(s)\"'"
        case .integer(let i): return "'\(i)'"
        case .real(let d): return "'\(d)'"
        case .specifier(let c): return "'%\(c)'"
        case .op(let o): return "'\(o)'"
        case .punct(let p): return "'\(p)'"
        case .modifier(let m): return "'[\(m)]'"
        case .end: return "end of format"
        }
    }

    private func isKeyword(_ token: PredicateToken, _ words: String...) -> Bool {
        if case .identifier(let w) = token { return words.contains(w.uppercased()) }
        return false
    }

    private mutating func parseOr() throws(CKError) -> PredicateNode {
        var terms = [try parseAnd()]
        while isKeyword(peek, "OR") || peek == .op("||") {
            _ = advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd() throws(CKError) -> PredicateNode {
        var terms = [try parseUnary()]
        while isKeyword(peek, "AND") || peek == .op("&&") {
            _ = advance()
            terms.append(try parseUnary())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseUnary() throws(CKError) -> PredicateNode {
        if isKeyword(peek, "NOT") || peek == .op("!") {
            _ = advance()
            return .not(try parseUnary())
        }
        if isKeyword(peek, "TRUEPREDICATE") { _ = advance(); return .constant(true) }
        if isKeyword(peek, "FALSEPREDICATE") { _ = advance(); return .constant(false) }
        if peek == .punct("(") {
            let save = position, saveArg = argumentIndex
            _ = advance()
            // A parenthesis opens either a nested predicate or a function's argument list.
            if let node = try? parseOr(), peek == .punct(")") {
                _ = advance()
                return node
            }
            position = save
            argumentIndex = saveArg
        }
        return .comparison(try parseComparison())
    }

    private mutating func parseComparison() throws(CKError) -> PredicateComparison {
        let start = position
        var quantifier = PredicateComparison.Quantifier.none
        if isKeyword(peek, "ANY", "SOME") {
            _ = advance(); quantifier = .any
        } else if isKeyword(peek, "ALL") {
            _ = advance(); quantifier = .all
        } else if isKeyword(peek, "NONE") {
            _ = advance(); quantifier = .noneOf
        }
        let left = try parseExpression()
        let op = try parseOperator()
        var modifiers = ""
        if case .modifier(let m) = peek { _ = advance(); modifiers = m }
        let right = try parseExpression()
        let text = tokens[start..<position].map(sourceText).joined(separator: " ")
        return PredicateComparison(quantifier: quantifier, left: left, op: op, modifiers: modifiers, right: right, text: text)
    }

    private func sourceText(_ token: PredicateToken) -> String {
        switch token {
        case .identifier(let w): return w
        case .string(let s): return "'\(s)'"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .specifier(let c): return "%\(c)"
        case .op(let o): return o
        case .punct(let p): return String(p)
        case .modifier(let m): return "[\(m)]"
        case .end: return ""
        }
    }

    private mutating func parseOperator() throws(CKError) -> PredicateComparison.Operator {
        let token = advance()
        switch token {
        case .op("="), .op("=="): return .equal
        case .op("!="), .op("<>"): return .notEqual
        case .op("<"): return .less
        case .op("<="), .op("=<"): return .lessOrEqual
        case .op(">"): return .greater
        case .op(">="), .op("=>"): return .greaterOrEqual
        case .identifier(let word):
            if let op = PredicateComparison.Operator(rawValue: word.uppercased()), !op.rawValue.hasPrefix("=") { return op }
            throw fail("'\(word)' is not a comparison operator")
        default:
            throw fail("expected a comparison operator, found \(describe(token))")
        }
    }

    private mutating func nextArgument(_ specifier: Character) throws(CKError) -> Any {
        guard argumentIndex < arguments.count else { throw fail("too few arguments for '%\(specifier)'") }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private mutating func parseExpression() throws(CKError) -> PredicateExpression {
        let token = advance()
        switch token {
        case .string(let s): return .value(s)
        case .integer(let i): return .value(i)
        case .real(let d): return .value(d)
        case .specifier("K"):
            let argument = try nextArgument("K")
            guard let key = argument as? String else { throw fail("'%K' needs a String key, got \(type(of: argument))") }
            return .key(key)
        case .specifier(let s):
            let argument = try nextArgument(s)
            if argument is NSNull { return .null }
            return .value(argument)
        case .punct("{"):
            var items: [PredicateExpression] = []
            if peek == .punct("}") { _ = advance(); return .list(items) }
            while true {
                items.append(try parseExpression())
                let separator = advance()
                if separator == .punct("}") { return .list(items) }
                guard separator == .punct(",") else { throw fail("expected ',' or '}' in a list, found \(describe(separator))") }
            }
        case .identifier(let word):
            switch word.uppercased() {
            case "SELF": return .selfObject
            case "NIL", "NULL": return .null
            case "TRUE", "YES": return .value(true)
            case "FALSE", "NO": return .value(false)
            default: break
            }
            if word.hasPrefix("$") { throw fail("substitution variables such as '\(word)' are not supported") }
            if peek == .punct("(") {
                _ = advance()
                var args: [PredicateExpression] = []
                if peek == .punct(")") { _ = advance(); return .function(word, args) }
                while true {
                    args.append(try parseExpression())
                    let separator = advance()
                    if separator == .punct(")") { return .function(word, args) }
                    guard separator == .punct(",") else { throw fail("expected ',' or ')' in '\(word)(…)', found \(describe(separator))") }
                }
            }
            return .key(word.hasPrefix("#") ? String(word.dropFirst()) : word)
        default:
            throw fail("expected a key or a value, found \(describe(token))")
        }
    }
}

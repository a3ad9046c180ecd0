import Foundation

// See StratusKit.swift for why these are extensions of Foundation's class.

/// Receives a format predicate's source when the predicate is evaluated with it.
final class PredicateSourceProbe {
    var format: String?
    var arguments: [Any] = []

    /// The block of a format predicate: it hands `format` and `arguments` to a probe.
    static func block(format: String, arguments: [Any]) -> (Any?, [String: Any]?) -> Bool {
        { object, _ in
            guard let probe = object as? PredicateSourceProbe else { return false }
            probe.format = format
            probe.arguments = arguments
            return true
        }
    }
}

#if !canImport(Darwin)
extension NSPredicate {
    /// Creates a predicate from a format string and arguments (`%@` value, `%K` key, `%d`, `%f`).
    /// On Linux the predicate is for CloudKit queries: it is parsed when the query runs, and a
    /// format CloudKit refuses fails the query with `CKError.invalidArguments`.
    public convenience init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// Creates a predicate from a format string and an array of arguments.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self.init(block: PredicateSourceProbe.block(format: predicateFormat, arguments: arguments ?? []))
    }
}
#endif

extension NSPredicate {
    /// The predicate as CKWS filters (docs/protocol.md §5), or the reason CloudKit would refuse it.
    func queryFilters() throws(CKError) -> QueryFilters {
        try QueryFilterTranslator.translate(try syntax())
    }

    /// Parses the predicate: compound predicates by their parts, value predicates as constants,
    /// format predicates from their source.
    func syntax() throws(CKError) -> PredicateNode {
        if let compound = self as? NSCompoundPredicate {
            var parts: [PredicateNode] = []
            for sub in compound.subpredicates { parts.append(try sub.syntax()) }
            switch compound.compoundPredicateType {
            case .and: return .and(parts)
            case .or: return .or(parts)
            case .not:
                guard let first = parts.first else { return .constant(true) }
                return .not(first)
            @unknown default: throw PredicateError.invalid("unknown compound predicate type")
            }
        }
        #if canImport(Darwin)
        var parser = try PredicateParser(format: predicateFormat, arguments: [])
        return try parser.parse()
        #else
        let probe = PredicateSourceProbe()
        let value = evaluate(with: probe)
        guard let format = probe.format else { return .constant(value) }
        var parser = try PredicateParser(format: format, arguments: probe.arguments)
        return try parser.parse()
        #endif
    }
}

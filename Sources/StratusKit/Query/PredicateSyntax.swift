import Foundation

/// A parsed predicate, before it is checked against what CloudKit accepts.
indirect enum PredicateNode {
    case constant(Bool)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
    case comparison(PredicateComparison)
}

/// `[ANY|ALL|NONE] left op[modifiers] right`.
struct PredicateComparison {
    enum Quantifier { case none, any, all, noneOf }
    enum Operator: String {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case between = "BETWEEN"
        case `in` = "IN"
        case contains = "CONTAINS"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case like = "LIKE"
        case matches = "MATCHES"
        case tokenMatches = "TOKENMATCHES"
    }

    var quantifier: Quantifier
    var left: PredicateExpression
    var op: Operator
    var modifiers: String
    var right: PredicateExpression
    /// The comparison as written, for error messages.
    var text: String
}

/// One side of a comparison.
indirect enum PredicateExpression {
    case key(String)
    case value(Any)
    case list([PredicateExpression])
    case function(String, [PredicateExpression])
    case selfObject
    case null
}

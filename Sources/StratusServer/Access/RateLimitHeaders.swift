import HTTPTypes

/// The remaining budget on every response, in the IETF draft's header names:
/// `RateLimit-Limit` (bucket size), `RateLimit-Remaining` (requests left now), `RateLimit-Reset`
/// (seconds until the bucket is full again).
enum RateLimitHeaders {
    static let limit = HTTPField.Name("RateLimit-Limit")!
    static let remaining = HTTPField.Name("RateLimit-Remaining")!
    static let reset = HTTPField.Name("RateLimit-Reset")!

    static func add(_ decision: RateDecision, to headers: inout HTTPFields) {
        headers[limit] = String(decision.limit)
        headers[remaining] = String(decision.remaining)
        headers[reset] = String(decision.resetSeconds)
    }

    /// "API token", "user" or "server-to-server key", for error reasons (never the key itself).
    static func budgetName(_ key: String) -> String {
        if key.hasPrefix("user:") { return "user" }
        if key.hasPrefix("key:") { return "server-to-server key" }
        return "API token"
    }
}

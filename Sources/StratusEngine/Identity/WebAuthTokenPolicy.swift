/// What becomes of a sign-in's web auth token once a response has carried its replacement.
///
/// Apple documents the tokens as single-use, but its service keeps accepting a replaced token for
/// the rest of the session, and clients that never read the rotation header rely on that. Both
/// ways rotate on every response; they differ in what still works afterwards.
public enum WebAuthTokenPolicy: String, Sendable, CaseIterable {
    /// Every token of a session works until the session ends (sign-out, or its lifetime passing
    /// without use), like Apple's service. The default.
    case session
    /// A token works once; only the replacement a response carried works next.
    case singleUse = "single-use"
}

/// A session's web auth token as clients send it: the session's secret, and after the n-th
/// rotation under `WebAuthTokenPolicy.session`, `.n` appended. The database holds only the
/// secret's digest, so rotating costs no new row, and signing out ends every token at once.
struct SessionTokenText {
    /// The secret the session row is stored under (by digest).
    let secret: String
    let rotation: Int

    init(_ token: String) {
        if let dot = token.lastIndex(of: "."), let rotation = Int(token[token.index(after: dot)...]), rotation > 0 {
            secret = String(token[..<dot])
            self.rotation = rotation
        } else {
            secret = token
            rotation = 0
        }
    }

    /// The token the response carries.
    var next: String { "\(secret).\(rotation + 1)" }
}

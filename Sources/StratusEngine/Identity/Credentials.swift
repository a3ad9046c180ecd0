import Foundation

/// What a request presents to prove who it is.
public struct RequestCredentials: Sendable {
    /// `ckAPIToken`.
    public var apiToken: String?
    /// `ckWebAuthToken` (or `ckSession`).
    public var webAuthToken: String?
    /// A server-to-server signature, when the request carries the key headers.
    public var signature: SignedRequest?
    /// The user a server-to-server key acts as (`X-Stratus-Act-As-User`).
    public var actAsUser: String?

    public init(apiToken: String? = nil, webAuthToken: String? = nil, signature: SignedRequest? = nil, actAsUser: String? = nil) {
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.signature = signature
        self.actAsUser = actAsUser
    }
}

/// The three server-to-server headers and what they sign (docs/protocol.md §2.3).
public struct SignedRequest: Sendable {
    /// `X-Apple-CloudKit-Request-KeyID`.
    public var keyID: String
    /// `X-Apple-CloudKit-Request-ISO8601Date`, as sent.
    public var date: String
    /// `X-Apple-CloudKit-Request-SignatureV1`: base64 of an ECDSA P-256 signature (DER or raw r||s).
    public var signature: String
    /// The URL path with its query string, as sent.
    public var pathAndQuery: String
    /// The request body (empty for GET).
    public var body: [UInt8]

    public init(keyID: String, date: String, signature: String, pathAndQuery: String, body: [UInt8]) {
        self.keyID = keyID
        self.date = date
        self.signature = signature
        self.pathAndQuery = pathAndQuery
        self.body = body
    }
}

/// Who a request turned out to be, and what the response must carry back.
public struct Authenticated: Sendable {
    public var scope: RequestScope
    /// The API token used (its settings decide CORS); `nil` for server-to-server requests.
    public var apiToken: APITokenRow?
    /// The web auth token that replaces the one the request carried (sign-in tokens rotate), to send
    /// back in `X-Apple-CloudKit-Web-Auth-Token` on every response, errors included.
    public var replacementWebAuthToken: String?
    /// Whose budget the request spends: the user, else the key, else the API token.
    public var rateLimitKey: String
}

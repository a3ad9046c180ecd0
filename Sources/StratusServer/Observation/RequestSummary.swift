import Foundation
import StratusEngine

/// What one HTTP request was, delivered to every `RequestObserver` once the server has its
/// response: the access log, the metrics and the console's telemetry are built from these.
///
/// Nothing in it is secret: no token, signature, record value or query string. The caller is a
/// keyed hash of who spent the request's rate-limit budget, never the raw identity.
public struct RequestSummary: Sendable, Equatable {
    /// The kind of work a request asked for: a small, fixed set, so it can label metrics.
    public enum Operation: String, Sendable, CaseIterable {
        case query, lookup, modify, changes, zones, assets, users, subscriptions, courier, sharing
        case signIn = "sign-in"
        case other
    }

    /// The request UUID: the `X-Apple-Request-UUID` header and the `uuid` of error dictionaries.
    public var uuid: String
    public var operation: Operation
    /// The endpoint, bounded like `operation`: a CKWS operation path (`records/modify`,
    /// `tokens/create`) or a route of this server (`/signin`, `/webcourier`, `/health`).
    public var endpoint: String
    /// The container named in the path, when the path names one (database and device requests).
    public var container: String?
    /// The database scope and environment named in the path, when it names valid ones.
    public var database: DatabaseScope?
    public var environment: DatabaseEnvironment?
    /// The HTTP status code of the response.
    public var status: Int
    /// From the request's arrival at the responder to the response being ready to write (for a
    /// stream, until its headers are ready: the stream itself is not included).
    public var latency: Duration
    /// The `serverErrorCode` of a whole-request error response, nil for successes.
    public var serverErrorCode: String?
    /// A keyed hash of the caller (user, server-to-server key or API token), stable while the
    /// key stays; nil when the request never got as far as authenticating.
    public var caller: String?
    /// When the response was ready.
    public var finishedAt: Date
    /// Whether the request was for this server's API or console (a CKWS path, a route of its
    /// own). A browser's `/favicon.ico` or a crawler's `/robots.txt` is not: it is still in the
    /// access log, but its 404 is no API error in the error metrics or the console's Telemetry
    /// and Logs screens.
    public var isAPIRequest: Bool

    public init(
        uuid: String, operation: Operation, endpoint: String, container: String? = nil, database: DatabaseScope? = nil,
        environment: DatabaseEnvironment? = nil, status: Int, latency: Duration, serverErrorCode: String? = nil,
        caller: String? = nil, finishedAt: Date = Date(), isAPIRequest: Bool = true
    ) {
        self.uuid = uuid
        self.operation = operation
        self.endpoint = endpoint
        self.container = container
        self.database = database
        self.environment = environment
        self.status = status
        self.latency = latency
        self.serverErrorCode = serverErrorCode
        self.caller = caller
        self.finishedAt = finishedAt
        self.isAPIRequest = isAPIRequest
    }

    /// `2xx`, `4xx`, `5xx`…: the status as a metrics label.
    public var statusClass: String { "\(status / 100)xx" }
}

/// The `serverErrorCode` values of CloudKit Web Services (docs/protocol.md §10.1), with their HTTP status.
///
/// Only these codes are ever emitted: some existing clients crash on codes they do not know.
public enum ServerErrorCode: String, Sendable, CaseIterable, Hashable {
    case accessDenied = "ACCESS_DENIED"
    case atomicError = "ATOMIC_ERROR"
    case authenticationFailed = "AUTHENTICATION_FAILED"
    case authenticationRequired = "AUTHENTICATION_REQUIRED"
    case badRequest = "BAD_REQUEST"
    case conflict = "CONFLICT"
    case exists = "EXISTS"
    case internalError = "INTERNAL_ERROR"
    case notFound = "NOT_FOUND"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case throttled = "THROTTLED"
    case tryAgainLater = "TRY_AGAIN_LATER"
    case validatingReferenceError = "VALIDATING_REFERENCE_ERROR"
    case zoneNotFound = "ZONE_NOT_FOUND"
    case uniqueFieldError = "UNIQUE_FIELD_ERROR"

    /// The HTTP status a whole-request failure with this code is sent with.
    public var httpStatus: Int {
        switch self {
        case .accessDenied: return 403
        case .atomicError, .badRequest: return 400
        case .authenticationFailed: return 401
        case .authenticationRequired: return 421
        case .conflict, .exists, .uniqueFieldError: return 409
        case .internalError: return 500
        case .notFound, .zoneNotFound: return 404
        case .quotaExceeded: return 413
        case .throttled: return 429
        case .tryAgainLater: return 503
        case .validatingReferenceError: return 412
        }
    }
}

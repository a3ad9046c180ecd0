import StratusModel

/// The engine's error: a CKWS server error code and a reason a developer can act on.
///
/// Every failure that reaches a client is one of these; the HTTP layer turns it into the
/// `{"uuid", "serverErrorCode", "reason"}` dictionary. Reasons never contain SQL or internals.
public struct CloudKitError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ServerErrorCode
    public var reason: String
    /// Seconds after which a retry may succeed (THROTTLED, TRY_AGAIN_LATER).
    public var retryAfter: Int?
    /// For CONFLICT/EXISTS: the record as the server has it, so a client can merge.
    public var serverRecord: JSONValue?
    /// For AUTHENTICATION_REQUIRED: where the user signs in.
    public var redirectURL: String?

    public init(_ code: ServerErrorCode, _ reason: String, retryAfter: Int? = nil, serverRecord: JSONValue? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func badRequest(_ reason: String) -> CloudKitError { CloudKitError(.badRequest, reason) }

    public static func wire(_ error: WireError) -> CloudKitError { CloudKitError(.badRequest, error.description) }

    /// What request-parsing code threw, as a client error: a wire-shape error or a CloudKit error
    /// as it is; anything else as BAD_REQUEST naming it.
    package static func parsing(_ error: any Error) -> CloudKitError {
        switch error {
        case let error as CloudKitError: return error
        case let error as WireError: return .wire(error)
        default: return .badRequest("\(error)")
        }
    }
}

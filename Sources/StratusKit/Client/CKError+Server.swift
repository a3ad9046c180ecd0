import Foundation
import StratusModel

extension CKError {
    /// Maps a CKWS error (docs/protocol.md §10.3) to a `CKError`. `reason` becomes the description;
    /// `retryAfter` the retry hint.
    init(serverErrorCode: String, reason: String?, retryAfter: Double?, extra: [String: Any] = [:]) {
        let code: CKError.Code
        switch ServerErrorCode(rawValue: serverErrorCode) {
        case .accessDenied: code = .permissionFailure
        case .atomicError: code = .batchRequestFailed
        case .authenticationFailed, .authenticationRequired: code = .notAuthenticated
        case .badRequest:
            // CKWS has no code for an expired change token or the sharing errors; the server marks the reason.
            code = reason.flatMap(CKError.Code.init(markedReason:)) ?? .invalidArguments
        case .conflict, .exists: code = .serverRecordChanged
        case .uniqueFieldError: code = .constraintViolation
        case .internalError: code = .internalError
        case .notFound: code = .unknownItem
        case .quotaExceeded: code = .quotaExceeded
        case .throttled: code = .requestRateLimited
        case .tryAgainLater: code = .serviceUnavailable
        case .validatingReferenceError: code = .referenceViolation
        case .zoneNotFound: code = .zoneNotFound
        case nil: code = .serverRejectedRequest
        }
        var info = extra
        info[NSLocalizedDescriptionKey] = reason ?? serverErrorCode
        info["ServerErrorCode"] = serverErrorCode
        if let retryAfter { info[CKErrorRetryAfterKey] = retryAfter }
        self.init(code, userInfo: info)
    }

    /// Reads an error dictionary (whole-request or per-item); `nil` when it is not one.
    init?(errorDictionary json: JSONValue, extra: [String: Any] = [:]) {
        guard let code = json["serverErrorCode"]?.stringValue else { return nil }
        self.init(
            serverErrorCode: code, reason: json["reason"]?.stringValue,
            retryAfter: json["retryAfter"]?.doubleValue, extra: extra)
    }

    /// The server's code, when the error came from the server.
    var serverErrorCode: String? { userInfo["ServerErrorCode"] as? String }
}

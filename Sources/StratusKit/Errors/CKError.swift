import Foundation

/// The error domain of CloudKit errors.
public let CKErrorDomain = "CKErrorDomain"
/// userInfo key: per-item errors of a `partialFailure`, keyed by record ID, zone ID or subscription ID.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"
/// userInfo key: the record as the server has it, on `serverRecordChanged`.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"
/// userInfo key: the record the client tried to save, on `serverRecordChanged`.
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"
/// userInfo key: the record the client's edit was based on, on `serverRecordChanged`.
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"
/// userInfo key: seconds to wait before retrying.
public let CKErrorRetryAfterKey = "CKRetryAfter"

/// An error from CloudKit (here: from the SDK or the Stratus server).
///
/// `@unchecked Sendable`: `userInfo` is `[String: Any]` as in Apple's SDK; the SDK only puts
/// immutable values and records it no longer uses into it.
public struct CKError: CustomNSError, Hashable, Error, @unchecked Sendable {
    /// CloudKit's error codes, with Apple's numeric values.
    public enum Code: Int, Sendable, Hashable, Equatable {
        case internalError = 1
        case partialFailure = 2
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case missingEntitlement = 8
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        @available(*, deprecated, message: "Will not be returned")
        case resultsTruncated = 13
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case assetFileNotFound = 16
        case assetFileModified = 17
        case incompatibleVersion = 18
        case constraintViolation = 19
        case operationCancelled = 20
        case changeTokenExpired = 21
        case batchRequestFailed = 22
        case zoneBusy = 23
        case badDatabase = 24
        case quotaExceeded = 25
        case zoneNotFound = 26
        case limitExceeded = 27
        case userDeletedZone = 28
        case tooManyParticipants = 29
        case alreadyShared = 30
        case referenceViolation = 31
        case managedAccountRestricted = 32
        case participantMayNeedVerification = 33
        case serverResponseLost = 34
        case assetNotAvailable = 35
        case accountTemporarilyUnavailable = 36
        case participantAlreadyInvited = 37
    }

    /// The error's code.
    public let code: Code
    /// Details: a localized description, records for conflicts, partial errors, retry hints.
    public let userInfo: [String: Any]

    /// Creates an error with a code and details.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// Creates an error with a message (the localized description).
    init(_ code: Code, _ message: String, extra: [String: Any] = [:]) {
        var info = extra
        info[NSLocalizedDescriptionKey] = message
        self.init(code, userInfo: info)
    }

    public static var errorDomain: String { CKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    /// The message describing the error.
    public var localizedDescription: String {
        (userInfo[NSLocalizedDescriptionKey] as? String) ?? "CKError \(code.rawValue) (\(code))"
    }

    public static func == (lhs: CKError, rhs: CKError) -> Bool {
        lhs.code == rhs.code && lhs.localizedDescription == rhs.localizedDescription
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(localizedDescription)
    }

    /// Per-item errors of a `partialFailure`.
    public var partialErrorsByItemID: [AnyHashable: any Error]? {
        userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error]
    }
    /// The server's copy of the record, on `serverRecordChanged`.
    public var serverRecord: CKRecord? { userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord }
    /// The record the client tried to save, on `serverRecordChanged`.
    public var clientRecord: CKRecord? { userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord }
    /// The record the client's edit was based on, on `serverRecordChanged`.
    public var ancestorRecord: CKRecord? { userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord }
    /// How long to wait before retrying, when the server said.
    public var retryAfterSeconds: Double? {
        if let seconds = userInfo[CKErrorRetryAfterKey] as? Double { return seconds }
        return (userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue
    }
}

extension CKError: CustomStringConvertible {
    public var description: String { "CKError(\(code), \(code.rawValue)): \(localizedDescription)" }
}

extension CKError {
    public static var internalError: Code { .internalError }
    public static var partialFailure: Code { .partialFailure }
    public static var networkUnavailable: Code { .networkUnavailable }
    public static var networkFailure: Code { .networkFailure }
    public static var badContainer: Code { .badContainer }
    public static var serviceUnavailable: Code { .serviceUnavailable }
    public static var requestRateLimited: Code { .requestRateLimited }
    public static var missingEntitlement: Code { .missingEntitlement }
    public static var notAuthenticated: Code { .notAuthenticated }
    public static var permissionFailure: Code { .permissionFailure }
    public static var unknownItem: Code { .unknownItem }
    public static var invalidArguments: Code { .invalidArguments }
    public static var serverRecordChanged: Code { .serverRecordChanged }
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    public static var assetFileNotFound: Code { .assetFileNotFound }
    public static var assetFileModified: Code { .assetFileModified }
    public static var incompatibleVersion: Code { .incompatibleVersion }
    public static var constraintViolation: Code { .constraintViolation }
    public static var operationCancelled: Code { .operationCancelled }
    public static var changeTokenExpired: Code { .changeTokenExpired }
    public static var batchRequestFailed: Code { .batchRequestFailed }
    public static var zoneBusy: Code { .zoneBusy }
    public static var badDatabase: Code { .badDatabase }
    public static var quotaExceeded: Code { .quotaExceeded }
    public static var zoneNotFound: Code { .zoneNotFound }
    public static var limitExceeded: Code { .limitExceeded }
    public static var userDeletedZone: Code { .userDeletedZone }
    public static var tooManyParticipants: Code { .tooManyParticipants }
    public static var alreadyShared: Code { .alreadyShared }
    public static var referenceViolation: Code { .referenceViolation }
    public static var managedAccountRestricted: Code { .managedAccountRestricted }
    public static var participantMayNeedVerification: Code { .participantMayNeedVerification }
    public static var serverResponseLost: Code { .serverResponseLost }
    public static var assetNotAvailable: Code { .assetNotAvailable }
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
    public static var participantAlreadyInvited: Code { .participantAlreadyInvited }
}

/// Lets `catch CKError.serverRecordChanged { … }` and `case CKError.zoneNotFound:` match.
public func ~= (pattern: CKError.Code, error: any Error) -> Bool {
    (error as? CKError)?.code == pattern
}

/// In a `zoneNotFound` error's user info: `true` when the zone is gone because the user reset
/// their encrypted-data key (re-upload the zone's data), and in a decryption failure's
/// (`.zoneNotFound`) when the key that encrypted a value is not on this device.
public let CKErrorUserDidResetEncryptedDataKey = "CKErrorUserDidResetEncryptedDataKey"

import Foundation
@testable import StratusKit
import StratusModel
import Testing

@Suite("server error → CKError")
struct ServerErrorMappingTests {
    @Test("an expired sync token becomes changeTokenExpired; other BAD_REQUESTs stay invalidArguments")
    func expiredToken() {
        let expired = CKError(serverErrorCode: "BAD_REQUEST", reason: ReasonPrefix.syncTokenExpired + ": fetch again without a token", retryAfter: nil)
        #expect(expired.code == .changeTokenExpired)
        let other = CKError(serverErrorCode: "BAD_REQUEST", reason: "syncToken is not valid", retryAfter: nil)
        #expect(other.code == .invalidArguments)
    }

    @Test("CKWS codes map as docs/protocol.md §10.3 lists")
    func codes() {
        let expected: [String: CKError.Code] = [
            "CONFLICT": .serverRecordChanged, "EXISTS": .serverRecordChanged, "NOT_FOUND": .unknownItem,
            "ZONE_NOT_FOUND": .zoneNotFound, "THROTTLED": .requestRateLimited, "ATOMIC_ERROR": .batchRequestFailed,
            "VALIDATING_REFERENCE_ERROR": .referenceViolation, "AUTHENTICATION_REQUIRED": .notAuthenticated,
        ]
        for (server, code) in expected {
            #expect(CKError(serverErrorCode: server, reason: nil, retryAfter: nil).code == code, "\(server)")
        }
    }
}

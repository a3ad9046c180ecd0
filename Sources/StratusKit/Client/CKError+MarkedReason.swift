import Foundation
import StratusModel

extension CKError.Code {
    /// The code a `BAD_REQUEST` reason stands for when it starts with a word the server uses
    /// for an error CKWS has no code of its own for (see docs/sharing.md, Errors).
    init?(markedReason reason: String) {
        if reason.hasPrefix(ReasonPrefix.syncTokenExpired) {
            self = .changeTokenExpired
        } else if reason.hasPrefix("ALREADY_SHARED:") {
            self = .alreadyShared
        } else if reason.hasPrefix("TOO_MANY_PARTICIPANTS:") {
            self = .tooManyParticipants
        } else {
            return nil
        }
    }
}

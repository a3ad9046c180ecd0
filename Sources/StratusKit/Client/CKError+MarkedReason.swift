import Foundation
import StratusModel

extension CKError.Code {
    /// The code a `BAD_REQUEST` reason stands for when it starts with a word the server uses
    /// for an error CKWS has no code of its own for (see ``ReasonPrefix`` and docs/sharing.md).
    init?(markedReason reason: String) {
        if reason.hasPrefix(ReasonPrefix.syncTokenExpired) {
            self = .changeTokenExpired
        } else if reason.hasPrefix(ReasonPrefix.alreadyShared) {
            self = .alreadyShared
        } else if reason.hasPrefix(ReasonPrefix.tooManyParticipants) {
            self = .tooManyParticipants
        } else {
            return nil
        }
    }
}

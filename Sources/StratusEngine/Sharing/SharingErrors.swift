import StratusModel

extension CloudKitError {
    /// A record or zone that already belongs to a share (see `ReasonPrefix.alreadyShared`).
    static func alreadyShared(_ detail: String) -> CloudKitError {
        .badRequest("\(ReasonPrefix.alreadyShared) \(detail)")
    }

    static func tooManyParticipants(_ count: Int, limit: Int) -> CloudKitError {
        .badRequest("\(ReasonPrefix.tooManyParticipants) the share would have \(count) participants with its owner; the limit is \(limit)")
    }
}

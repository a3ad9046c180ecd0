import StratusModel

/// Who the caller of records/resolve or records/accept is to a share (docs/sharing.md, the
/// table under records/resolve).
enum ShareStanding: Sendable, Equatable {
    case owner
    /// A participant the owner added (or a public user who joined), not removed.
    case participant(ShareParticipant)
    /// Someone the share is open to through its public permission, not yet joined.
    case visitor(SharePermission)

    /// The caller's standing, or the error resolving the share answers them with.
    static func of(_ share: ShareRow, user: String?, email: String?) throws -> ShareStanding {
        guard let user else {
            guard share.publicPermission != .none else {
                throw CloudKitError(.authenticationRequired, "this share is open to the people it was shared with; sign in (add ckWebAuthToken)")
            }
            return .visitor(share.publicPermission)
        }
        if user == share.owner { return .owner }
        let mine =
            share.participants.first { $0.userRecordName == user }
            ?? share.participants.first { $0.userRecordName == nil && email != nil && $0.email == email }
        if let mine {
            guard mine.status != .removed else { throw ShareStanding.notFound }
            return .participant(mine)
        }
        guard share.publicPermission != .none else { throw ShareStanding.notFound }
        return .visitor(share.publicPermission)
    }

    /// What a caller with no standing hears: the same as for a GUID that does not exist.
    static let notFound = CloudKitError(.notFound, "no share has this short GUID, or it is not shared with you")

    var type: ParticipantRole {
        switch self {
        case .owner: return .owner
        case .participant(let participant): return participant.role
        case .visitor: return .publicUser
        }
    }

    var status: String {
        switch self {
        case .owner: return AcceptanceStatus.accepted.rawValue
        case .participant(let participant): return participant.status.rawValue
        case .visitor: return "UNKNOWN"
        }
    }

    var permission: SharePermission {
        switch self {
        case .owner: return .readWrite
        case .participant(let participant): return participant.permission
        case .visitor(let permission): return permission
        }
    }
}

import Foundation

extension CKShare {
    /// What a participant may do with the shared records.
    public enum ParticipantPermission: Int, Sendable, Hashable {
        case unknown = 0
        case none = 1
        case readOnly = 2
        case readWrite = 3
    }

    /// How a participant came to be in a share.
    public enum ParticipantRole: Int, Sendable, Hashable {
        case unknown = 0
        /// The user who shared the records.
        case owner = 1
        /// A user the owner added.
        case privateUser = 3
        /// Anyone holding the URL of a share with a public permission.
        case publicUser = 4
    }

    /// Deprecated name of ``ParticipantRole``, with the same values.
    @available(*, deprecated, renamed: "ParticipantRole")
    public typealias ParticipantType = ParticipantRole

    /// Where a participant stands with the share.
    public enum ParticipantAcceptanceStatus: Int, Sendable, Hashable {
        case unknown = 0
        /// Added by the owner, not accepted yet.
        case pending = 1
        case accepted = 2
        /// Removed by the owner, or left.
        case removed = 3
    }

    /// A user in a share: who they are, their role, permission and acceptance status.
    ///
    /// `@unchecked Sendable` as in Apple's SDK: the owner edits a participant's permission before
    /// saving the share, from one thread.
    public class Participant: NSObject, NSCopying, @unchecked Sendable {
        /// A participant's identifier, stable within its share.
        public typealias ID = String

        /// The identifier the server gave the participant; a new participant has a local one
        /// until the share is saved.
        public internal(set) var participantID: CKShare.Participant.ID
        /// Who the participant is.
        public internal(set) var userIdentity: CKUserIdentity
        /// The participant's role.
        public var role: CKShare.ParticipantRole
        /// What the participant may do.
        public var permission: CKShare.ParticipantPermission
        /// Whether the participant accepted the share.
        public internal(set) var acceptanceStatus: CKShare.ParticipantAcceptanceStatus
        /// Whether ``participantID`` came from the server (a local one is not sent).
        var hasServerID = false

        /// The participant's role, under its deprecated name.
        @available(*, deprecated, renamed: "role")
        public var type: CKShare.ParticipantRole {
            get { role }
            set { role = newValue }
        }

        init(
            participantID: CKShare.Participant.ID = UUID().uuidString, userIdentity: CKUserIdentity,
            role: CKShare.ParticipantRole = .privateUser, permission: CKShare.ParticipantPermission = .readOnly,
            acceptanceStatus: CKShare.ParticipantAcceptanceStatus = .pending
        ) {
            self.participantID = participantID
            self.userIdentity = userIdentity
            self.role = role
            self.permission = permission
            self.acceptanceStatus = acceptanceStatus
            super.init()
        }

        public func copy(with zone: NSZone? = nil) -> Any {
            let copy = Participant(
                participantID: participantID, userIdentity: userIdentity, role: role, permission: permission,
                acceptanceStatus: acceptanceStatus)
            copy.hasServerID = hasServerID
            return copy
        }

        /// Two participants are equal when they have the same identifier.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? Participant else { return false }
            return participantID == other.participantID
        }

        /// Whether both name the same person: the same identifier, user record or lookup address.
        func isSamePerson(as other: Participant) -> Bool {
            participantID == other.participantID || userIdentity.isSamePerson(as: other.userIdentity)
        }

        public override var hash: Int { participantID.hashValue }

        public override var description: String {
            "<CKShareParticipant: \(userIdentity.lookupInfo?.emailAddress ?? userIdentity.userRecordID?.recordName ?? participantID) role=\(role) permission=\(permission) status=\(acceptanceStatus)>"
        }
    }
}

/// Deprecated name of `CKShare.Participant`.
@available(*, deprecated, renamed: "CKShare.Participant")
public typealias CKShareParticipant = CKShare.Participant

extension CKUserIdentity {
    /// Whether both identities name the same user: the same user record, email or phone number.
    func isSamePerson(as other: CKUserIdentity) -> Bool {
        if let mine = userRecordID?.recordName, let theirs = other.userRecordID?.recordName { return mine == theirs }
        if let mine = lookupInfo?.emailAddress, let theirs = other.lookupInfo?.emailAddress {
            return mine.lowercased() == theirs.lowercased()
        }
        if let mine = lookupInfo?.phoneNumber, let theirs = other.lookupInfo?.phoneNumber { return mine == theirs }
        return false
    }
}

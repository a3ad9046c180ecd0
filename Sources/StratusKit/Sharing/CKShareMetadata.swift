import Foundation

extension CKShare {
    /// What a share URL leads to, read before accepting: the share, its owner, the root record
    /// and the caller's place in it. Pass it to `CKContainer.accept(_:)` to join.
    public class Metadata: NSObject, NSCopying, @unchecked Sendable {
        // @unchecked Sendable: immutable after init, as in Apple's SDK.

        /// The container the share lives in.
        public let containerIdentifier: String
        /// The share.
        public let share: CKShare
        /// The root of a hierarchy share; `nil` for a zone-wide share.
        public let hierarchicalRootRecordID: CKRecord.ID?
        /// The caller's role in the share.
        public let participantRole: CKShare.ParticipantRole
        /// Whether the caller has accepted the share.
        public let participantStatus: CKShare.ParticipantAcceptanceStatus
        /// What the caller may do once they accept.
        public let participantPermission: CKShare.ParticipantPermission
        /// Who shared the records.
        public let ownerIdentity: CKUserIdentity
        /// The root record, when it was asked for (`shouldFetchRootRecord`) and the caller may read it.
        public let rootRecord: CKRecord?
        /// The share's short GUID, which `records/accept` takes.
        let shortGUID: String

        /// The root record's ID; for a zone-wide share, the share's.
        @available(*, deprecated, renamed: "hierarchicalRootRecordID")
        public var rootRecordID: CKRecord.ID { hierarchicalRootRecordID ?? share.recordID }

        /// The caller's role, under its deprecated name.
        @available(*, deprecated, renamed: "participantRole")
        public var participantType: CKShare.ParticipantRole { participantRole }

        init(
            containerIdentifier: String, share: CKShare, hierarchicalRootRecordID: CKRecord.ID?,
            participantRole: CKShare.ParticipantRole, participantStatus: CKShare.ParticipantAcceptanceStatus,
            participantPermission: CKShare.ParticipantPermission, ownerIdentity: CKUserIdentity, rootRecord: CKRecord?,
            shortGUID: String
        ) {
            self.containerIdentifier = containerIdentifier
            self.share = share
            self.hierarchicalRootRecordID = hierarchicalRootRecordID
            self.participantRole = participantRole
            self.participantStatus = participantStatus
            self.participantPermission = participantPermission
            self.ownerIdentity = ownerIdentity
            self.rootRecord = rootRecord
            self.shortGUID = shortGUID
            super.init()
        }

        public func copy(with zone: NSZone? = nil) -> Any { self }

        /// Metadata of the same share in the same container are equal.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? Metadata else { return false }
            return shortGUID == other.shortGUID && containerIdentifier == other.containerIdentifier
        }

        public override var hash: Int {
            var hasher = Hasher()
            hasher.combine(shortGUID)
            hasher.combine(containerIdentifier)
            return hasher.finalize()
        }

        public override var description: String {
            "<CKShareMetadata: share=\(share.recordID.recordName) role=\(participantRole) status=\(participantStatus) permission=\(participantPermission)>"
        }
    }
}

/// Deprecated name of `CKShare.Metadata`.
@available(*, deprecated, renamed: "CKShare.Metadata")
public typealias CKShareMetadata = CKShare.Metadata

import Foundation

/// The record name of a zone-wide share: the share of every record in its zone.
public let CKRecordNameZoneWideShare = "cloudkit.zoneshare"

/// A record that shares a hierarchy of records (a root and every record whose `parent` leads to
/// it) or a whole zone with other users.
///
/// Save a new hierarchy share together with its root record in one `CKModifyRecordsOperation`
/// (or `modifyRecords(saving:deleting:)`). Saving a share always checks its change tag, whatever
/// the save policy, so two owners' edits of the participant list never overwrite each other.
open class CKShare: CKRecord, @unchecked Sendable {
    // @unchecked Sendable: see CKRecord.

    /// Keys of the share's own fields, set through the subscript: `share[CKShare.SystemFieldKey.title] = "Groceries"`.
    public enum SystemFieldKey {
        /// The title shown to invited users.
        public static let title: CKRecord.FieldKey = "cloudkit.title"
        /// A small image shown to invited users (`Data`).
        public static let thumbnailImageData: CKRecord.FieldKey = "cloudkit.thumbnailImageData"
        /// A uniform type identifier describing what is shared.
        public static let shareType: CKRecord.FieldKey = "cloudkit.type"
    }

    /// What anyone holding the URL may do; `.none` (the default) limits the share to the
    /// participants the owner added. Setting it back to `.none` removes every public participant
    /// when the share is saved.
    public var publicPermission: CKShare.ParticipantPermission = .none
    /// The share's URL on the server, to send to participants; `nil` until the share is saved.
    public internal(set) var url: URL?
    /// Everyone in the share, the owner first.
    public internal(set) var participants: [CKShare.Participant] = []
    /// The participant of the person using this device, when they are in the share.
    public internal(set) var currentUserParticipant: CKShare.Participant?
    /// The record name of the hierarchy's root; `nil` for a zone-wide share.
    var rootRecordName: String?

    /// The owner of the share.
    public var owner: CKShare.Participant {
        participants.first { $0.role == .owner } ?? CKShare.Participant.currentUserAsOwner()
    }

    /// A share of `rootRecord` and the records below it, with a new record name, in the root's zone.
    public convenience init(rootRecord: CKRecord) {
        self.init(rootRecord: rootRecord, shareID: CKRecord.ID(recordName: UUID().uuidString, zoneID: rootRecord.recordID.zoneID))
    }

    /// A share of `rootRecord` and the records below it, with the given record ID (in the root's zone).
    public init(rootRecord: CKRecord, shareID: CKRecord.ID) {
        super.init(recordType: CKRecord.SystemType.share, recordID: shareID)
        rootRecordName = rootRecord.recordID.recordName
        rootRecord.share = CKRecord.Reference(recordID: shareID, action: .none)
        becomeNew()
    }

    /// A share of every record in the zone, named ``CKRecordNameZoneWideShare``.
    public init(recordZoneID: CKRecordZone.ID) {
        super.init(recordType: CKRecord.SystemType.share, recordID: CKRecord.ID(recordName: CKRecordNameZoneWideShare, zoneID: recordZoneID))
        becomeNew()
    }

    /// A share as the server sent it; the server's state is applied next.
    init(recordID: CKRecord.ID) {
        super.init(recordType: CKRecord.SystemType.share, recordID: recordID)
    }

    /// Restores a share archived with `encode(with:)`; `nil` when the archive does not hold one.
    public required convenience init?(coder: NSCoder) {
        guard let (type, recordID) = CKRecord.decodeIdentity(from: coder), type == CKRecord.SystemType.share else { return nil }
        self.init(recordID: recordID)
        decodeArchive(from: coder)
        decodeShareArchive(from: coder)
    }

    /// A new share holds its owner, the current user, who has accepted and may read and write.
    private func becomeNew() {
        let owner = CKShare.Participant.currentUserAsOwner()
        participants = [owner]
        currentUserParticipant = owner
    }

    /// Adds a participant (from `CKFetchShareParticipantsOperation` or
    /// `CKContainer.shareParticipant(forEmailAddress:)`); they join when the share is saved.
    /// Adding someone already in the share changes nothing.
    public func addParticipant(_ participant: CKShare.Participant) {
        if let index = participants.firstIndex(where: { $0.isSamePerson(as: participant) }) {
            guard participants[index].acceptanceStatus == .removed else { return }
            participants.remove(at: index)
        }
        participants.append(participant)
    }

    /// Removes a participant; they lose access when the share is saved. The owner cannot be removed.
    public func removeParticipant(_ participant: CKShare.Participant) {
        participants.removeAll { $0.role != .owner && $0.isSamePerson(as: participant) }
    }

    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKShare(recordID: recordID)
        copy.copyRecordState(from: self)
        copy.publicPermission = publicPermission
        copy.url = url
        copy.participants = participants.map { $0.copy() as! CKShare.Participant }
        copy.currentUserParticipant = currentUserParticipant.flatMap { current in
            copy.participants.first { $0.participantID == current.participantID }
        }
        copy.rootRecordName = rootRecordName
        return copy
    }

    open override var description: String {
        "<CKShare: recordID=\(recordID.recordName):(\(recordID.zoneID.zoneName):\(recordID.zoneID.ownerName)), participants=\(participants.count), publicPermission=\(publicPermission), url=\(url?.absoluteString ?? "nil")>"
    }
}

extension CKShare.Participant {
    /// The current user as the owner of a share not saved yet.
    static func currentUserAsOwner() -> CKShare.Participant {
        CKShare.Participant(
            participantID: "owner",
            userIdentity: CKUserIdentity(
                userRecordID: CKRecord.ID(recordName: CKCurrentUserDefaultName),
                lookupInfo: nil, nameComponents: nil),
            role: .owner, permission: .readWrite, acceptanceStatus: .accepted)
    }
}

import Foundation
import StratusKit
import Testing

/// The sharing code above compiles; these checks run the parts that need no server.
@Suite("Sharing-style code")
struct SharingCompileTests {
    @Test("a new share holds its owner, its title and the root's share reference")
    func newShare() {
        let store = SharedListStore()
        let list = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "groceries", zoneID: store.listsZone.zoneID))
        let share = store.makeShare(of: list, title: "Groceries")
        #expect(share.recordType == "cloudkit.share")
        #expect(share.recordID.zoneID == list.recordID.zoneID)
        #expect(list.share?.recordID == share.recordID)
        #expect(share[CKShare.SystemFieldKey.title] as? String == "Groceries")
        #expect(share.participants.count == 1)
        #expect(share.owner.role == .owner)
        #expect(share.owner.permission == .readWrite)
        #expect(share.currentUserParticipant == share.owner)
        #expect(share.url == nil)
        #expect(store.summary(of: share) == ["__defaultOwner__: owner, joined, can edit"])

        let item = store.addItem("Milk", to: list)
        #expect(item.parent?.recordID == list.recordID)
        #expect(store.shareWholeZone().recordID.recordName == "cloudkit.zoneshare")
    }

    @Test("enum raw values are Apple's")
    func rawValues() {
        #expect(CKShare.ParticipantPermission.readWrite.rawValue == 3)
        #expect(CKShare.ParticipantRole.publicUser.rawValue == 4)
        #expect(CKShare.ParticipantAcceptanceStatus.removed.rawValue == 3)
        #expect(CKError.Code.alreadyShared.rawValue == 30)
        #expect(ShareAcceptor(container: SharedListStore().container).handle(CKError(.alreadyShared)) == "already shared")
    }
}

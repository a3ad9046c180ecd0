import Foundation
@testable import StratusKit
import StratusModel
import Testing

/// Shares against the wire contract in docs/sharing.md, without a server: what a save sends,
/// what a fetched share record becomes, archiving, and the sharing error reasons.
@Suite("CKShare on the wire")
struct ShareWireTests {
    let zone = CKRecordZone.ID(zoneName: "Lists")

    /// A share record as the server sends it (the documented response shape).
    let serverShare: JSONValue = [
        "recordName": "share-1", "recordType": "cloudkit.share", "recordChangeTag": "2f",
        "zoneID": ["zoneName": "Lists", "ownerRecordName": "_owner"],
        "fields": ["cloudkit.title": ["type": "STRING", "value": "Groceries"]],
        "shortGUID": "f3Kx9q2LmA0", "url": "http://127.0.0.1:8080/share/f3Kx9q2LmA0",
        "share": ["recordName": "list-1"],
        "publicPermission": "READ_ONLY",
        "owner": [
            "participantId": "p-owner", "type": "OWNER", "permission": "READ_WRITE", "acceptanceStatus": "ACCEPTED",
            "userIdentity": ["userRecordName": "_owner"],
        ],
        "participants": [
            [
                "participantId": "p-owner", "type": "OWNER", "permission": "READ_WRITE", "acceptanceStatus": "ACCEPTED",
                "userIdentity": ["userRecordName": "_owner"],
            ],
            [
                "participantId": "p-b", "type": "USER", "permission": "READ_WRITE", "acceptanceStatus": "INVITED",
                "userIdentity": [
                    "lookupInfo": ["emailAddress": "b@example.com"],
                    "nameComponents": ["givenName": "B", "familyName": "User"],
                ],
            ],
        ],
        "currentUserParticipant": [
            "participantId": "p-b", "type": "USER", "permission": "READ_WRITE",
            "acceptanceStatus": "INVITED", "userIdentity": ["lookupInfo": ["emailAddress": "b@example.com"]],
        ],
    ]

    @Test("a new hierarchy share is created with its root, permission and added participants, not the owner")
    func newShareSaveOperation() throws {
        let list = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "list-1", zoneID: zone))
        let share = CKShare(rootRecord: list, shareID: CKRecord.ID(recordName: "share-1", zoneID: zone))
        share[CKShare.SystemFieldKey.title] = "Groceries"
        share.publicPermission = .readOnly
        let participant = CKShare.Participant(
            userIdentity: CKUserIdentity(
                userRecordID: nil, lookupInfo: CKUserIdentity.LookupInfo(emailAddress: "b@example.com"), nameComponents: nil))
        participant.permission = .readWrite
        share.addParticipant(participant)
        share.addParticipant(participant.copy() as! CKShare.Participant)
        #expect(share.participants.count == 2, "adding the same person twice keeps one entry")

        let operation = share.saveOperation(policy: .allKeys)
        #expect(operation["operationType"]?.stringValue == "create", "a share is never force-replaced")
        let record = try #require(operation["record"])
        #expect(record["recordType"]?.stringValue == "cloudkit.share")
        #expect(record["forRecord"]?["recordName"]?.stringValue == "list-1")
        #expect(record["publicPermission"]?.stringValue == "READ_ONLY")
        #expect(record["fields"]?["cloudkit.title"]?["value"]?.stringValue == "Groceries")
        let sent = try #require(record["participants"]?.arrayValue)
        #expect(sent.count == 1)
        #expect(sent[0]["type"]?.stringValue == "USER")
        #expect(sent[0]["permission"]?.stringValue == "READ_WRITE")
        #expect(sent[0]["userIdentity"]?["lookupInfo"]?["emailAddress"]?.stringValue == "b@example.com")
        #expect(sent[0]["participantId"] == nil, "a participant new to the share is matched by its lookup info")
    }

    @Test("a share record from the server becomes a CKShare with its participants, URL and root")
    func decodesServerShare() throws {
        let share = try #require(CKRecord.fromWire(serverShare, zoneID: zone) as? CKShare)
        #expect(share.recordChangeTag == "2f")
        #expect(share.url?.absoluteString == "http://127.0.0.1:8080/share/f3Kx9q2LmA0")
        #expect(share.publicPermission == .readOnly)
        #expect(share.rootRecordName == "list-1")
        #expect(share.share == nil)
        #expect(share[CKShare.SystemFieldKey.title] as? String == "Groceries")
        #expect(share.participants.map(\.participantID) == ["p-owner", "p-b"])
        #expect(share.owner.userIdentity.userRecordID?.recordName == "_owner")
        let invited = share.participants[1]
        #expect(invited.role == .privateUser && invited.permission == .readWrite && invited.acceptanceStatus == .pending)
        #expect(invited.userIdentity.nameComponents?.givenName == "B")
        #expect(share.currentUserParticipant === invited)

        // An edit sends the server's participant IDs back and the change tag; no root again.
        invited.permission = .readOnly
        let record = try #require(share.saveOperation(policy: .changedKeys)["record"])
        #expect(record["recordChangeTag"]?.stringValue == "2f")
        #expect(record["forRecord"] == nil)
        #expect(record["participants"]?[0]?["participantId"]?.stringValue == "p-b")
        #expect(record["participants"]?[0]?["permission"]?.stringValue == "READ_ONLY")

        share.removeParticipant(invited)
        share.removeParticipant(share.owner)
        #expect(share.participants.map(\.participantID) == ["p-owner"], "the owner cannot be removed")
        #expect(share.saveOperation(policy: .ifServerRecordUnchanged)["record"]?["participants"]?.arrayValue?.isEmpty == true)
    }

    @Test("a share's participants survive the system-fields archive, so a restored share saves the same list")
    func archiveKeepsParticipants() throws {
        let share = try #require(CKRecord.fromWire(serverShare, zoneID: zone) as? CKShare)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        share.encodeSystemFields(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        let restored = try #require(CKShare(coder: unarchiver))
        #expect(restored.recordChangeTag == "2f")
        #expect(restored.participants.map(\.participantID) == ["p-owner", "p-b"])
        #expect(restored.publicPermission == .readOnly)
        #expect(restored.url == share.url)
        #expect(restored.currentUserParticipant?.participantID == "p-b")
    }

    @Test("sharing reasons map to their CKError codes")
    func sharingErrors() {
        let shared = CKError(serverErrorCode: "BAD_REQUEST", reason: "ALREADY_SHARED: record 'list-1' is already in share 'share-0'", retryAfter: nil)
        #expect(shared.code == .alreadyShared)
        let many = CKError(serverErrorCode: "BAD_REQUEST", reason: "TOO_MANY_PARTICIPANTS: a share holds at most 100 participants", retryAfter: nil)
        #expect(many.code == .tooManyParticipants)
        #expect(CKError(serverErrorCode: "BAD_REQUEST", reason: "the share names no root", retryAfter: nil).code == .invalidArguments)
    }
}

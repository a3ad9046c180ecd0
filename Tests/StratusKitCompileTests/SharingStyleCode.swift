// Sharing code written the way Apple's CloudKit sharing documentation and sample apps write it.
// The only change from the Apple-platform original is `import StratusKit` instead of
// `import CloudKit`. It proves the sharing API compiles on Linux; `SharingCompileTests` runs the
// parts that need no server.
import Foundation
import StratusKit

final class SharedListStore {
    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Lists", apiToken: "token"))
    let listsZone = CKRecordZone(zoneName: "Lists")

    // "Share records with other users": a share of a root record, saved with it in one operation.
    func makeShare(of list: CKRecord, title: String) -> CKShare {
        let share = CKShare(rootRecord: list)
        share[CKShare.SystemFieldKey.title] = title as CKRecordValue
        share[CKShare.SystemFieldKey.shareType] = "com.example.list" as CKRecordValue
        share.publicPermission = .none
        return share
    }

    func save(_ list: CKRecord, sharedAs share: CKShare, completion: @escaping @Sendable (Result<URL?, Error>) -> Void) {
        let operation = CKModifyRecordsOperation(recordsToSave: [list, share], recordIDsToDelete: nil)
        operation.savePolicy = .changedKeys
        operation.perRecordSaveBlock = { recordID, result in
            if case .failure(let error) = result { print("Couldn't save \(recordID.recordName): \(error)") }
        }
        operation.modifyRecordsResultBlock = { result in
            switch result {
            case .success: completion(.success(share.url))
            case .failure(let error): completion(.failure(error))
            }
        }
        container.privateCloudDatabase.add(operation)
    }

    func share(_ list: CKRecord, withEmailAddresses emails: [String]) async throws -> CKShare {
        let share = makeShare(of: list, title: "Groceries")
        for email in emails {
            let participant = try await container.shareParticipant(forEmailAddress: email)
            participant.permission = .readWrite
            share.addParticipant(participant)
        }
        let (saveResults, _) = try await container.privateCloudDatabase.modifyRecords(saving: [list, share], deleting: [])
        guard let saved = try saveResults[share.recordID]?.get() as? CKShare else { throw CKError(.internalError) }
        return saved
    }

    // Looking participants up with an operation.
    func fetchParticipants(emails: [String], completion: @escaping @Sendable ([CKShare.Participant]) -> Void) {
        let lookupInfos = emails.map { CKUserIdentity.LookupInfo(emailAddress: $0) }
        let operation = CKFetchShareParticipantsOperation(userIdentityLookupInfos: lookupInfos)
        let found = ParticipantBox()
        operation.perShareParticipantResultBlock = { lookupInfo, result in
            switch result {
            case .success(let participant): found.append(participant)
            case .failure(let error): print("No participant for \(lookupInfo.emailAddress ?? "?"): \(error)")
            }
        }
        operation.fetchShareParticipantsResultBlock = { _ in completion(found.all) }
        container.add(operation)
    }

    // A zone-wide share: every record of the zone.
    func shareWholeZone() -> CKShare {
        let share = CKShare(recordZoneID: listsZone.zoneID)
        share.publicPermission = .readOnly
        precondition(share.recordID.recordName == CKRecordNameZoneWideShare)
        return share
    }

    // Children join the share through their parent.
    func addItem(_ title: String, to list: CKRecord) -> CKRecord {
        let item = CKRecord(recordType: "Item", recordID: CKRecord.ID(zoneID: list.recordID.zoneID))
        item["title"] = title as CKRecordValue
        item.setParent(list)
        item.parent = CKRecord.Reference(record: list, action: .none)
        return item
    }

    // Changing and ending a share.
    func makeReadOnly(_ participant: CKShare.Participant, in share: CKShare) async throws {
        participant.permission = .readOnly
        try await container.privateCloudDatabase.save(share)
    }

    func remove(_ participant: CKShare.Participant, from share: CKShare) async throws {
        share.removeParticipant(participant)
        try await container.privateCloudDatabase.save(share)
    }

    func stopSharing(_ share: CKShare) async throws {
        try await container.privateCloudDatabase.deleteRecord(withID: share.recordID)
    }

    func summary(of share: CKShare) -> [String] {
        share.participants.map { participant in
            let who = participant.userIdentity.lookupInfo?.emailAddress ?? participant.userIdentity.userRecordID?.recordName ?? "?"
            let role: String
            switch participant.role {
            case .owner: role = "owner"
            case .privateUser: role = "invited"
            case .publicUser: role = "anyone with the link"
            case .unknown: role = "unknown"
            @unknown default: role = "unknown"
            }
            let status = participant.acceptanceStatus == .accepted ? "joined" : "not joined"
            let access = participant.permission == .readWrite ? "can edit" : "can view"
            return "\(who): \(role), \(status), \(access)"
        }
    }
}

/// Collects participants from an operation's callbacks.
final class ParticipantBox: @unchecked Sendable {
    private let lock = NSLock()
    private var participants: [CKShare.Participant] = []
    func append(_ participant: CKShare.Participant) { lock.withLock { participants.append(participant) } }
    var all: [CKShare.Participant] { lock.withLock { participants } }
}

final class ShareAcceptor {
    let container: CKContainer

    init(container: CKContainer) { self.container = container }

    // The scene delegate's `windowScene(_:userDidAcceptCloudKitShareWith:)`, as Apple's samples write it.
    func userDidAcceptCloudKitShare(with cloudKitShareMetadata: CKShare.Metadata) {
        let operation = CKAcceptSharesOperation(shareMetadatas: [cloudKitShareMetadata])
        operation.qualityOfService = .userInteractive
        operation.perShareResultBlock = { metadata, result in
            switch result {
            case .success(let share): print("Accepted \(share.recordID.recordName) from \(metadata.ownerIdentity.userRecordID?.recordName ?? "?")")
            case .failure(let error): print("Couldn't accept: \(error)")
            }
        }
        operation.acceptSharesResultBlock = { result in
            if case .failure(let error) = result { print(error.localizedDescription) }
        }
        container.add(operation)
    }

    func open(_ url: URL, completion: @escaping @Sendable (CKShare.Metadata?) -> Void) {
        let operation = CKFetchShareMetadataOperation(shareURLs: [url])
        operation.shouldFetchRootRecord = true
        operation.rootRecordDesiredKeys = ["title"]
        operation.perShareMetadataResultBlock = { _, result in
            completion(try? result.get())
        }
        operation.fetchShareMetadataResultBlock = { result in
            if case .failure(let error) = result { print(error) }
        }
        container.add(operation)
    }

    func acceptAndOpen(_ url: URL) async throws -> CKRecord? {
        let metadata = try await container.shareMetadata(for: url)
        guard metadata.participantStatus != .accepted else { return metadata.rootRecord }
        if metadata.participantRole == .owner { return metadata.rootRecord }
        let share = try await container.accept(metadata)
        print("Joined \(share[CKShare.SystemFieldKey.title] as? String ?? "a share") as \(metadata.participantPermission == .readWrite ? "editor" : "viewer")")
        guard let rootRecordID = metadata.hierarchicalRootRecordID else { return nil }
        return try await container.sharedCloudDatabase.record(for: rootRecordID)
    }

    func sharedLists() async throws -> [CKRecord] {
        var lists: [CKRecord] = []
        for zone in try await container.sharedCloudDatabase.allRecordZones() {
            let query = CKQuery(recordType: "List", predicate: NSPredicate(value: true))
            let (results, _) = try await container.sharedCloudDatabase.records(matching: query, inZoneWith: zone.zoneID)
            lists += results.compactMap { try? $0.1.get() }
        }
        return lists
    }

    func leave(_ share: CKShare) async throws {
        try await container.sharedCloudDatabase.deleteRecord(withID: share.recordID)
    }

    func fetchMetadata(_ url: URL) {
        let container = self.container
        container.fetchShareMetadata(with: url) { metadata, error in
            guard let metadata else { print(error?.localizedDescription ?? ""); return }
            container.accept(metadata) { share, error in
                if let error { print(error) } else { print(share?.participants.count ?? 0) }
            }
        }
    }

    func handle(_ error: Error) -> String {
        guard let ckError = error as? CKError else { return "other" }
        switch ckError.code {
        case .alreadyShared: return "already shared"
        case .tooManyParticipants: return "too many participants"
        case .participantMayNeedVerification: return "verify"
        case .permissionFailure: return "not allowed"
        case .zoneNotFound, .unknownItem: return "no longer shared"
        default: return "other"
        }
    }
}

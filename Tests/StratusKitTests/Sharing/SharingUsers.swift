import Foundation
import StratusEngine
import StratusKit

/// People who share with each other in sharing tests: signed-in users of one fresh container on
/// the live server, each with an email address and a container of their own (their device).
struct SharingUsers {
    let owner: CKContainer
    let friend: CKContainer
    let stranger: CKContainer
    /// A visitor without a signed-in user.
    let anonymous: CKContainer
    let ownerName: String
    let friendName: String
    let friendEmail: String

    static func make(on server: LiveServer) async throws -> SharingUsers {
        let identifier = "iCloud.test.share.\(UUID().uuidString.prefix(8).lowercased())"
        let apiToken = try await server.engine.createContainer(identifier)
        func device(_ name: String?) async throws -> (CKContainer, String?) {
            guard let name else {
                return (
                    CKContainer(
                        configuration: StratusConfiguration(
                            serverURL: server.baseURL, containerIdentifier: identifier,
                            apiToken: apiToken, maximumRetryDelay: 2)), nil
                )
            }
            let user = try await server.engine.createUser(
                name: name, container: identifier,
                options: NewUserOptions(email: "\(name)@example.com"))
            var configuration = StratusConfiguration(
                serverURL: server.baseURL, containerIdentifier: identifier, apiToken: apiToken,
                webAuthToken: user.webAuthToken, maximumRetryDelay: 2)
            configuration.assetCacheFolder = server.folder.appendingPathComponent("cache-\(identifier)-\(name)")
            return (CKContainer(configuration: configuration), user.userRecordName)
        }
        let (owner, ownerName) = try await device("owner")
        let (friend, friendName) = try await device("friend")
        let (stranger, _) = try await device("stranger")
        let (anonymous, _) = try await device(nil)
        return SharingUsers(
            owner: owner, friend: friend, stranger: stranger, anonymous: anonymous,
            ownerName: ownerName!, friendName: friendName!, friendEmail: "friend@example.com")
    }

    /// The owner's list (root) with one item below it, in a custom zone of the owner's private
    /// database, not shared yet.
    func makeList(zoneName: String = "Lists") async throws -> (list: CKRecord, item: CKRecord) {
        let database = owner.privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: zoneName))
        let list = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "groceries", zoneID: zone.zoneID))
        list["title"] = "Groceries"
        let item = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "milk", zoneID: zone.zoneID))
        item["title"] = "Milk"
        item.setParent(list)
        _ = try await database.modifyRecords(saving: [list, item], deleting: [])
        return (list, item)
    }

    /// The owner shares the list with the friend, who gets `permission`; returns the saved share.
    func shareList(_ list: CKRecord, permission: CKShare.ParticipantPermission) async throws -> CKShare {
        let share = CKShare(rootRecord: list)
        share[CKShare.SystemFieldKey.title] = "Groceries"
        let participant = try await owner.shareParticipant(forEmailAddress: friendEmail)
        participant.permission = permission
        share.addParticipant(participant)
        let (saveResults, _) = try await owner.privateCloudDatabase.modifyRecords(saving: [list, share], deleting: [])
        _ = try saveResults[list.recordID]?.get()
        guard let saved = try saveResults[share.recordID]?.get() as? CKShare else {
            throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "the saved share came back as a plain record"])
        }
        return saved
    }

    /// The friend opens the share URL and accepts; returns the metadata they saw.
    @discardableResult
    func friendAccepts(_ share: CKShare) async throws -> CKShare.Metadata {
        guard let url = share.url else { throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "the saved share has no URL"]) }
        let metadata = try await friend.shareMetadata(for: url)
        try await friend.accept(metadata)
        return metadata
    }

    /// The friend's view of a record of the owner's: the same name, in the owner's zone.
    func inSharedDatabase(_ recordID: CKRecord.ID) -> CKRecord.ID {
        CKRecord.ID(recordName: recordID.recordName, zoneID: CKRecordZone.ID(zoneName: recordID.zoneID.zoneName, ownerName: ownerName))
    }
}

/// The error a throwing call ends with, or `nil` when it succeeds.
func sharingError<T>(_ body: () async throws -> T) async -> CKError? {
    do {
        _ = try await body()
        return nil
    } catch let error as CKError {
        return error
    } catch {
        return CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "not a CKError: \(error)"])
    }
}

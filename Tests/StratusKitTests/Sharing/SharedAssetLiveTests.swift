import Foundation
import StratusKit
import Testing

/// Assets saved by participants in the shared database, against a live server.
@Suite("Assets in the shared database against a live server")
struct SharedAssetLiveTests {
    /// A photo-sized file with recognisable bytes.
    func photo() throws -> (URL, Data) {
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("photo-\(UUID().uuidString).jpg")
        try bytes.write(to: file)
        return (file, bytes)
    }

    /// A new record below the shared list, as the friend sees it, holding the file.
    func photoRecord(_ users: SharingUsers, list: CKRecord, file: URL) -> CKRecord {
        let zoneID = users.inSharedDatabase(list.recordID).zoneID
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "photo", zoneID: zoneID))
        record["image"] = CKAsset(fileURL: file)
        record.setParent(users.inSharedDatabase(list.recordID))
        return record
    }

    @Test("a READ_WRITE participant saves a record with an asset into the owner's zone, and the owner reads the same bytes")
    func readWriteParticipantsUploadAssets() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, _) = try await users.makeList()
        try await users.friendAccepts(try await users.shareList(list, permission: .readWrite))
        let (file, bytes) = try photo()
        defer { try? FileManager.default.removeItem(at: file) }

        _ = try await users.friend.sharedCloudDatabase.save(photoRecord(users, list: list, file: file))

        let seen = try await users.owner.privateCloudDatabase.record(for: CKRecord.ID(recordName: "photo", zoneID: list.recordID.zoneID))
        let downloaded = try #require((seen["image"] as? CKAsset)?.fileURL)
        #expect(try Data(contentsOf: downloaded) == bytes)
    }

    @Test("a READ_ONLY participant cannot upload an asset, and nothing is saved")
    func readOnlyParticipantsCannot() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, _) = try await users.makeList()
        try await users.friendAccepts(try await users.shareList(list, permission: .readOnly))
        let (file, _) = try photo()
        defer { try? FileManager.default.removeItem(at: file) }

        let error = await sharingError { try await users.friend.sharedCloudDatabase.save(photoRecord(users, list: list, file: file)) }
        #expect(error?.code == .permissionFailure, "\(String(describing: error))")
        let lookup = await sharingError {
            try await users.owner.privateCloudDatabase.record(for: CKRecord.ID(recordName: "photo", zoneID: list.recordID.zoneID))
        }
        #expect(lookup?.code == .unknownItem)
    }
}

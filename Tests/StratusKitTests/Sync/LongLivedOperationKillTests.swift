import Foundation
import StratusKit
import Testing

/// A long-lived operation outlives the process that added it: killed before the server
/// answered, it is listed, rebuilt and finished by a new process, which gets its results.
@Suite("Long-lived operations resumed by a new process")
struct LongLivedOperationKillTests {
    @Test func aLongLivedSaveKilledWithItsProcessIsFinishedByTheNextOne() async throws {
        // 1. The first process adds the operation while the server cannot be reached, then dies.
        let killed = try await KilledLongLivedOperation(["25"])
        let (id, container, restarted) = (killed.id, killed.container, killed.restarted)

        // 2. The app starts again and finds the unfinished operation.
        #expect(try await restarted.allLongLivedOperationIDs() == [id])
        let operation = try #require(try await restarted.longLivedOperation(for: id) as? CKModifyRecordsOperation)
        #expect(operation.operationID == id)
        #expect(operation.recordsToSave?.count == 25)
        #expect(operation.database?.databaseScope == .private)

        let saved = Recorder<String>()
        let finished = Recorder<Bool>()
        operation.perRecordSaveBlock = { id, result in if case .success = result { saved.add(id.recordName) } }
        operation.modifyRecordsResultBlock = { result in finished.add((try? result.get()) != nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.completionBlock = { continuation.resume() }
            restarted.add(operation)
        }
        #expect(Set(saved.all) == Set((0..<25).map { "L\($0)" }))
        #expect(finished.all == [true])
        #expect(try await restarted.allLongLivedOperationIDs().isEmpty, "a finished operation is forgotten")
        let onServer = try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "L24"))
        #expect(onServer["index"] as? Int == 24)
    }

    @Test func operationsThatAreNotLongLivedAreNotKept() async throws {
        let server = try await LiveServer.shared()
        var configuration = try #require(server.configuration(of: try await server.makeContainer()))
        configuration.longLivedOperationFolder = server.folder.appendingPathComponent("long-lived-\(UUID().uuidString)")
        let container = CKContainer(configuration: configuration)
        let operation = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Item")], recordIDsToDelete: nil)
        let persisted = Recorder<Bool>()
        operation.longLivedOperationWasPersistedBlock = { persisted.add(true) }
        await run(operation, on: container.privateCloudDatabase)
        #expect(persisted.all.isEmpty)
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }
}

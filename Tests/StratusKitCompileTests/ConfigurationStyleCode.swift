// Operation configuration, identity and encryption code as apps write it against CloudKit.
// Only the import differs from the Apple-platform original.
import Foundation
import StratusKit

final class ConfiguredSync {
    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Vault", apiToken: "token"))

    func makeGroup() -> CKOperationGroup {
        let group = CKOperationGroup()
        group.name = "Initial import"
        group.quantity = 250
        group.expectedSendSize = .hundredsOfMegabytes
        group.expectedReceiveSize = .kilobytes
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = 20
        configuration.timeoutIntervalForResource = 600
        configuration.allowsCellularAccess = false
        configuration.qualityOfService = .userInitiated
        group.defaultConfiguration = configuration
        return group
    }

    func importRecords(_ records: [CKRecord]) {
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        operation.group = makeGroup()
        operation.configuration.isLongLived = false
        container.privateCloudDatabase.add(operation)
        container.configuredWith(configuration: nil, group: makeGroup()) { configuredContainer in
            configuredContainer.privateCloudDatabase.add(CKFetchRecordZonesOperation.fetchAllRecordZonesOperation())
        }
    }

    func configuredFetch() async throws -> [CKRecordZone] {
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = 5
        return try await container.privateCloudDatabase.configuredWith(configuration: configuration) { database in
            try await database.allRecordZones()
        }
    }

    func webToken(apiToken: String) {
        let operation = CKFetchWebAuthTokenOperation(apiToken: apiToken)
        operation.fetchWebAuthTokenResultBlock = { result in
            switch result {
            case .success(let token): print(token)
            case .failure(let error): print(error)
            }
        }
        container.privateCloudDatabase.add(operation)
    }

    func currentUser() {
        let operation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
        operation.perRecordResultBlock = { recordID, result in
            if case .success(let userRecord) = result { print(recordID, userRecord.allTokens()) }
        }
        container.publicCloudDatabase.add(operation)
    }

    func observeAccount() -> NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { _ in print("account changed") }
    }

    func saveSecret(_ text: String) -> CKRecord {
        let record = CKRecord(recordType: "Vault")
        record.encryptedValues["secret"] = text
        let stored: String? = record.encryptedValues["secret"]
        _ = stored
        let zone = CKRecordZone(zoneName: "Vault")
        zone.encryptionScope = .perZone
        return record
    }

    func handle(_ error: CKError) -> Bool {
        error.code == .zoneNotFound && (error.userInfo[CKErrorUserDidResetEncryptedDataKey] as? Bool ?? false)
    }
}

final class LongLivedUpload: Sendable {
    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Vault", apiToken: "token"))

    func start(_ records: [CKRecord]) {
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        operation.configuration.isLongLived = true
        operation.longLivedOperationWasPersistedBlock = { print("persisted") }
        container.privateCloudDatabase.add(operation)
    }

    func resumeAfterLaunch() {
        container.fetchAllLongLivedOperationIDs { operationIDs, error in
            guard let operationIDs, error == nil else { return }
            for operationID in operationIDs {
                self.container.fetchLongLivedOperation(withID: operationID) { operation, error in
                    guard let operation = operation as? CKModifyRecordsOperation else { return }
                    operation.modifyRecordsResultBlock = { result in print(result) }
                    self.container.add(operation)
                }
            }
        }
    }

    func resumeAsync() async throws {
        for operationID in try await container.allLongLivedOperationIDs() {
            if let operation = try await container.longLivedOperation(for: operationID) { container.add(operation) }
        }
    }
}

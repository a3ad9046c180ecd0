import Foundation

extension CKContainer {
    /// The IDs of long-lived operations that were added (in this or an earlier process) and have
    /// not finished, oldest first.
    public func allLongLivedOperationIDs() async throws -> [CKOperation.ID] {
        LongLivedOperationStore(client.configuration).ids()
    }

    /// Completion-handler form of ``allLongLivedOperationIDs()``.
    public func fetchAllLongLivedOperationIDs(completionHandler: @escaping @Sendable ([CKOperation.ID]?, (any Error)?) -> Void) {
        Task { completionHandler(LongLivedOperationStore(client.configuration).ids(), nil) }
    }

    /// An unfinished long-lived operation, rebuilt with its ID, arguments and database; set its
    /// blocks and add it to run it (again) and get its results. `nil` when there is none.
    public func longLivedOperation(for operationID: CKOperation.ID) async throws -> CKOperation? {
        guard let document = LongLivedOperationStore(client.configuration).document(operationID) else { return nil }
        guard let operation = LongLivedOperations.restore(document, id: operationID, container: self) else {
            throw CKError(.internalError, "the long-lived operation \(operationID) was written by another version and cannot be read")
        }
        return operation
    }

    /// Completion-handler form of ``longLivedOperation(for:)``.
    public func fetchLongLivedOperation(
        withID operationID: CKOperation.ID,
        completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void
    ) {
        Task {
            do { completionHandler(try await longLivedOperation(for: operationID), nil) } catch { completionHandler(nil, error) }
        }
    }
}

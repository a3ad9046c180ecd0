import Foundation

extension CKOperation {
    /// The container a container-level operation runs against (``CKContainer/add(_:)`` fills
    /// in `configuration.container`), or the error to report when there is none.
    func requireContainer() throws(CKError) -> CKContainer {
        if isCancelled { throw cancellationError }
        guard let container = configuration?.container else {
            throw CKError(.invalidArguments, "the operation has no container; add it with CKContainer.add(_:)")
        }
        return container
    }
}

import Foundation

extension CKOperation {
    /// Runs a container operation made of items that each succeed or fail (share URLs, share
    /// metadatas, lookup infos): `work` produces every item's result, which goes to the operation's
    /// per-item block and its deprecated twin; then the completion blocks run. A failure of the
    /// whole request fails the operation; item failures end both final blocks with a
    /// `partialFailure` naming each failed item.
    func runContainerItems<Key: Hashable, Value>(
        _ work: (CKContainer) async throws -> [(Key, Result<Value, any Error>)],
        perItem: ((Key, Result<Value, any Error>) -> Void)?,
        legacyPerItem: ((Key, Value?, (any Error)?) -> Void)?,
        completion: ((Result<Void, any Error>) -> Void)?,
        legacyCompletion: (((any Error)?) -> Void)?
    ) async {
        do {
            let results = try await work(try requireContainer())
            var errors: [AnyHashable: any Error] = [:]
            for (key, result) in results {
                perItem?(key, result)
                switch result {
                case .success(let value): legacyPerItem?(key, value, nil)
                case .failure(let error):
                    errors[key] = error
                    legacyPerItem?(key, nil, error)
                }
            }
            completion?(batchResult(errors))
            legacyCompletion?(partialFailure(errors))
        } catch {
            completion?(.failure(error))
            legacyCompletion?(error)
        }
    }
}

import Foundation

/// Turns email addresses, phone numbers or user record IDs into participants to add to a share
/// (a container operation: run it with `CKContainer.add(_:)`).
open class CKFetchShareParticipantsOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The users to look up.
    public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo]?

    /// Called with each lookup's participant or error.
    public var perShareParticipantResultBlock:
        (
            (
                _ lookupInfo: CKUserIdentity.LookupInfo,
                _ participantResult: Result<CKShare.Participant, any Error>
            ) -> Void
        )?
    /// Called last.
    public var fetchShareParticipantsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called with each participant found.
    @available(*, deprecated, message: "Use perShareParticipantResultBlock instead")
    public var shareParticipantFetchedBlock: ((CKShare.Participant) -> Void)? {
        get { legacyFetched }
        set { legacyFetched = newValue }
    }
    /// Called last; item failures make a `partialFailure`.
    @available(*, deprecated, message: "Use fetchShareParticipantsResultBlock instead")
    public var fetchShareParticipantsCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyFetched: ((CKShare.Participant) -> Void)?
    private var legacyCompletion: (((any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    override func run() async {
        let fetched = legacyFetched
        await runContainerItems(
            { container in try await self.lookUpEach(in: container) },
            perItem: perShareParticipantResultBlock,
            legacyPerItem: { _, participant, _ in if let participant { fetched?(participant) } },
            completion: fetchShareParticipantsResultBlock, legacyCompletion: legacyCompletion)
    }

    /// Each lookup's participant or error; a failure to reach the server or to sign in fails them all.
    private func lookUpEach(in container: CKContainer) async throws -> [(CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>)] {
        var results: [(CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>)] = []
        for lookupInfo in userIdentityLookupInfos ?? [] {
            if isCancelled { throw cancellationError }
            do {
                results.append((lookupInfo, .success(try await container.shareParticipant(for: lookupInfo))))
            } catch let error as CKError where [.networkFailure, .networkUnavailable, .notAuthenticated].contains(error.code) {
                throw error
            } catch {
                results.append((lookupInfo, .failure(error)))
            }
        }
        return results
    }
}

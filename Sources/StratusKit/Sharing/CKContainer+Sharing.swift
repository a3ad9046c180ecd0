import Foundation

// The sharing API of CKContainer (iOS 15 / macOS 12 shapes): async methods, and completion-handler
// forms whose handlers get `(value?, error?)` for one item and a `Result` for a batch.

extension CKContainer {
    /// The metadata of the share a URL leads to (its owner, root and the caller's place in it).
    public func shareMetadata(for url: URL) async throws -> CKShare.Metadata {
        guard let (_, result) = try await resolveShares([url]).first else {
            throw CKError(.serverResponseLost, "records/resolve returned nothing")
        }
        return try result.get()
    }

    /// The metadata of several shares; each URL maps to its metadata or its error.
    public func shareMetadatas(for urls: [URL]) async throws -> [URL: Result<CKShare.Metadata, any Error>] {
        Dictionary(try await resolveShares(urls), uniquingKeysWith: { first, _ in first })
    }

    /// Joins a share; its records then appear in ``sharedCloudDatabase``.
    @discardableResult
    public func accept(_ metadata: CKShare.Metadata) async throws -> CKShare {
        guard let (_, result) = try await acceptShares([metadata]).first else {
            throw CKError(.serverResponseLost, "records/accept returned nothing")
        }
        return try result.get()
    }

    /// Joins several shares; each metadata maps to the accepted share or its error.
    public func accept(_ metadatas: [CKShare.Metadata]) async throws -> [CKShare.Metadata: Result<CKShare, any Error>] {
        Dictionary(try await acceptShares(metadatas), uniquingKeysWith: { first, _ in first })
    }

    /// A participant to add to a share, for the user with this email address.
    public func shareParticipant(forEmailAddress emailAddress: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(emailAddress: emailAddress))
    }

    /// A participant to add to a share, for the user with this phone number.
    public func shareParticipant(forPhoneNumber phoneNumber: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(phoneNumber: phoneNumber))
    }

    /// A participant to add to a share, for the user with this record ID.
    public func shareParticipant(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(userRecordID: userRecordID))
    }

    /// Participants for several email addresses; each address maps to its participant or its error.
    public func shareParticipants(forEmailAddresses emailAddresses: [String]) async throws -> [String: Result<CKShare.Participant, any Error>] {
        await participants(for: emailAddresses) { try await self.shareParticipant(forEmailAddress: $0) }
    }

    /// Participants for several phone numbers; each number maps to its participant or its error.
    public func shareParticipants(forPhoneNumbers phoneNumbers: [String]) async throws -> [String: Result<CKShare.Participant, any Error>] {
        await participants(for: phoneNumbers) { try await self.shareParticipant(forPhoneNumber: $0) }
    }

    /// Participants for several user record IDs; each ID maps to its participant or its error.
    public func shareParticipants(forUserRecordIDs userRecordIDs: [CKRecord.ID]) async throws
        -> [CKRecord.ID: Result<CKShare.Participant, any Error>]
    {
        await participants(for: userRecordIDs) { try await self.shareParticipant(forUserRecordID: $0) }
    }

    private func participants<Key: Hashable & Sendable>(
        for keys: [Key], _ lookUp: @Sendable (Key) async throws -> CKShare.Participant
    ) async -> [Key: Result<CKShare.Participant, any Error>] {
        var results: [Key: Result<CKShare.Participant, any Error>] = [:]
        for key in keys {
            do { results[key] = .success(try await lookUp(key)) } catch { results[key] = .failure(error) }
        }
        return results
    }
}

// MARK: - Completion-handler forms

extension CKContainer {
    /// Completion-handler form of ``shareMetadata(for:)``.
    public func fetchShareMetadata(with url: URL, completionHandler: @escaping @Sendable (CKShare.Metadata?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await shareMetadata(for: url), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``shareMetadatas(for:)``.
    public func fetchShareMetadatas(
        for urls: [URL],
        completionHandler: @escaping @Sendable (Result<[URL: Result<CKShare.Metadata, any Error>], any Error>) -> Void
    ) {
        Task { do { completionHandler(.success(try await shareMetadatas(for: urls))) } catch { completionHandler(.failure(error)) } }
    }

    /// Completion-handler form of ``accept(_:)-(CKShare.Metadata)``.
    public func accept(_ metadata: CKShare.Metadata, completionHandler: @escaping @Sendable (CKShare?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await accept(metadata), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of the batch `accept(_:)`: one result per share metadata.
    public func accept(
        _ metadatas: [CKShare.Metadata],
        completionHandler: @escaping @Sendable (Result<[CKShare.Metadata: Result<CKShare, any Error>], any Error>) -> Void
    ) {
        Task { do { completionHandler(.success(try await accept(metadatas))) } catch { completionHandler(.failure(error)) } }
    }

    /// Completion-handler form of ``shareParticipant(forEmailAddress:)``.
    public func fetchShareParticipant(
        withEmailAddress emailAddress: String,
        completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await shareParticipant(forEmailAddress: emailAddress), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``shareParticipant(forPhoneNumber:)``.
    public func fetchShareParticipant(
        withPhoneNumber phoneNumber: String,
        completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await shareParticipant(forPhoneNumber: phoneNumber), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``shareParticipant(forUserRecordID:)``.
    public func fetchShareParticipant(
        withUserRecordID userRecordID: CKRecord.ID,
        completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await shareParticipant(forUserRecordID: userRecordID), nil) } catch { completionHandler(nil, error) } }
    }
}

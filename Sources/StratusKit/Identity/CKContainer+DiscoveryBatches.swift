import Foundation
import StratusModel

// Discovery of several users at once, and of every discoverable user (`users/discover`).
// CloudKit deprecated discovery in iOS 17; Stratus keeps it working.

extension CKContainer {
    /// The discoverable users among `lookupInfos`; users not found or not discoverable are absent.
    public func userIdentities(for lookupInfos: [CKUserIdentity.LookupInfo]) async throws -> [CKUserIdentity.LookupInfo: CKUserIdentity] {
        try await discovered(lookupInfos) { $0 }
    }

    /// The discoverable users with these email addresses, by address.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func userIdentities(forEmailAddresses emailAddresses: [String]) async throws -> [String: CKUserIdentity] {
        try await discovered(CKUserIdentity.LookupInfo.lookupInfos(withEmails: emailAddresses)) { $0.emailAddress }
    }

    /// The discoverable users with these phone numbers, by number.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func userIdentities(forPhoneNumbers phoneNumbers: [String]) async throws -> [String: CKUserIdentity] {
        try await discovered(CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers: phoneNumbers)) { $0.phoneNumber }
    }

    /// The discoverable users with these record IDs, by ID.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func userIdentities(forUserRecordIDs userRecordIDs: [CKRecord.ID]) async throws -> [CKRecord.ID: CKUserIdentity] {
        try await discovered(CKUserIdentity.LookupInfo.lookupInfos(with: userRecordIDs)) { $0.userRecordID }
    }

    /// The users found for `lookupInfos`, keyed by what `key` reads from each lookup info.
    private func discovered<Key: Hashable>(
        _ lookupInfos: [CKUserIdentity.LookupInfo],
        key: (CKUserIdentity.LookupInfo) -> Key?
    ) async throws -> [Key: CKUserIdentity] {
        var found: [Key: CKUserIdentity] = [:]
        for (info, identity) in try await discover(lookupInfos) {
            if let identity, let key = key(info) { found[key] = identity }
        }
        return found
    }

    /// Completion-handler form of ``userIdentities(forEmailAddresses:)``.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func discoverUserIdentities(
        forEmailAddresses emailAddresses: [String],
        completionHandler: @escaping @Sendable (Result<[String: CKUserIdentity], any Error>) -> Void
    ) {
        Task { completionHandler(await Self.outcome { try await self.userIdentities(forEmailAddresses: emailAddresses) }) }
    }

    /// Completion-handler form of ``userIdentities(forPhoneNumbers:)``.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func discoverUserIdentities(
        forPhoneNumbers phoneNumbers: [String],
        completionHandler: @escaping @Sendable (Result<[String: CKUserIdentity], any Error>) -> Void
    ) {
        Task { completionHandler(await Self.outcome { try await self.userIdentities(forPhoneNumbers: phoneNumbers) }) }
    }

    /// Completion-handler form of ``userIdentities(forUserRecordIDs:)``.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func discoverUserIdentities(
        forUserRecordIDs userRecordIDs: [CKRecord.ID],
        completionHandler: @escaping @Sendable (Result<[CKRecord.ID: CKUserIdentity], any Error>) -> Void
    ) {
        Task { completionHandler(await Self.outcome { try await self.userIdentities(forUserRecordIDs: userRecordIDs) }) }
    }

    /// Every user of the container who chose to be discoverable.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func allUserIdentitiesFromContacts() async throws -> [CKUserIdentity] {
        try await discoverAll()
    }

    /// Completion-handler form of ``allUserIdentitiesFromContacts()``.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func discoverAllIdentities(completionHandler: @escaping @Sendable ([CKUserIdentity]?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await discoverAll(), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// `users/discover` with lookup infos: each info with its identity, `nil` when the user is
    /// unknown or not discoverable (the server does not tell the two apart).
    func discover(_ lookupInfos: [CKUserIdentity.LookupInfo]) async throws(CKError) -> [(CKUserIdentity.LookupInfo, CKUserIdentity?)] {
        var results: [(CKUserIdentity.LookupInfo, CKUserIdentity?)] = []
        for chunk in lookupInfos.chunked(maximumItemsPerRequest) {
            let json = try await client.send(.public, "users/discover", body: ["lookupInfos": .array(chunk.map(\.json))])
            let users = json["users"]?.arrayValue ?? []
            for (index, info) in chunk.enumerated() {
                results.append((info, index < users.count ? CKUserIdentity(wire: users[index], lookupInfo: info) : nil))
            }
        }
        return results
    }

    /// `users/discover` without a body: every discoverable user.
    func discoverAll() async throws(CKError) -> [CKUserIdentity] {
        let json = try await client.send(.public, "users/discover", method: "GET")
        return (json["users"]?.arrayValue ?? []).compactMap { CKUserIdentity(wire: $0, lookupInfo: nil) }
    }

    static func outcome<T>(_ work: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await work()) } catch { return .failure(error) }
    }
}

extension CKUserIdentity {
    /// Reads a CKWS user identity; `nil` for an entry with no `userRecordName` (not found or not
    /// discoverable).
    convenience init?(wire user: JSONValue, lookupInfo: LookupInfo?) {
        guard let name = user["userRecordName"]?.stringValue else { return nil }
        var components = PersonNameComponents()
        components.givenName = user["nameComponents"]?["givenName"]?.stringValue ?? user["firstName"]?.stringValue
        components.familyName = user["nameComponents"]?["familyName"]?.stringValue ?? user["lastName"]?.stringValue
        self.init(userRecordID: CKRecord.ID(recordName: name), lookupInfo: lookupInfo, nameComponents: components)
    }
}

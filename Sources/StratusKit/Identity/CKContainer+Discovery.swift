import Foundation
import StratusModel

extension CKContainer {
    /// The discoverable user with this email address, or `nil` (`users/discover`).
    public func userIdentity(forEmailAddress emailAddress: String) async throws -> CKUserIdentity? {
        try await userIdentity(for: CKUserIdentity.LookupInfo(emailAddress: emailAddress))
    }

    /// The discoverable user with this phone number, or `nil`.
    public func userIdentity(forPhoneNumber phoneNumber: String) async throws -> CKUserIdentity? {
        try await userIdentity(for: CKUserIdentity.LookupInfo(phoneNumber: phoneNumber))
    }

    /// The discoverable user with this record ID, or `nil`.
    public func userIdentity(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKUserIdentity? {
        try await userIdentity(for: CKUserIdentity.LookupInfo(userRecordID: userRecordID))
    }

    /// Completion-handler form of ``userIdentity(forEmailAddress:)``.
    public func discoverUserIdentity(
        withEmailAddress emailAddress: String,
        completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await userIdentity(forEmailAddress: emailAddress), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``userIdentity(forPhoneNumber:)``.
    public func discoverUserIdentity(
        withPhoneNumber phoneNumber: String,
        completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await userIdentity(forPhoneNumber: phoneNumber), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``userIdentity(forUserRecordID:)``.
    public func discoverUserIdentity(
        withUserRecordID userRecordID: CKRecord.ID,
        completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void
    ) {
        Task { do { completionHandler(try await userIdentity(forUserRecordID: userRecordID), nil) } catch { completionHandler(nil, error) } }
    }

    /// Looks one user up; users who did not opt in to discovery come back as `nil`, like unknown ones.
    func userIdentity(for lookupInfo: CKUserIdentity.LookupInfo) async throws -> CKUserIdentity? {
        try await discover([lookupInfo]).first?.1
    }
}

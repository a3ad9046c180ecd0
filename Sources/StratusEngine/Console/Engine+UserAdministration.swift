/// What the console does to one app user: see and end their sign-ins, change whether others
/// may discover them, and see and delete their push tokens.
extension Engine {
    /// The user, or NOT_FOUND naming the container.
    public func userAccount(container: String, userRecordName: String) async throws -> UserAccount {
        guard let account = try await storage.read({ reader in try await reader.userAccount(container: container, userRecordName: userRecordName) }) else {
            throw CloudKitError(.notFound, "container '\(container)' has no user '\(userRecordName.prefix(80))'")
        }
        return account
    }

    /// Web auth tokens of the user that still sign in.
    public func liveSessionCount(container: String, userRecordName: String) async throws -> Int {
        let now = nowMilliseconds()
        return try await storage.read { reader in
            try await reader.liveWebSessionCount(container: container, userRecordName: userRecordName, nowMilliseconds: now)
        }
    }

    /// Ends every sign-in of the user on every device (and every instance): each web auth token
    /// of theirs stops working. Returns how many tokens there were.
    @discardableResult
    public func signOutEverywhere(container: String, userRecordName: String) async throws -> Int {
        _ = try await userAccount(container: container, userRecordName: userRecordName)
        let removed = try await storage.write { writer in try await writer.removeWebSessions(container: container, userRecordName: userRecordName) }
        await forgetCachedCredentials()
        return removed
    }

    /// Whether other users may find this one by email or in `users/discover`.
    public func setDiscoverable(_ discoverable: Bool, container: String, userRecordName: String) async throws {
        try await storage.write { writer in
            guard var account = try await writer.userAccount(container: container, userRecordName: userRecordName) else {
                throw CloudKitError(.notFound, "container '\(container)' has no user '\(userRecordName.prefix(80))'")
            }
            account.discoverable = discoverable
            try await writer.saveUserAccount(account)
        }
    }

    public func pushTokens(container: String, userRecordName: String) async throws -> [PushTokenRow] {
        try await storage.read { reader in try await reader.pushTokens(container: container, userRecordName: userRecordName) }
    }

    /// Deletes a push token (by its digest) with its queued notifications; its pushes are
    /// recorded as dropped with `reason`.
    public func deletePushToken(container: String, digest: String, reason: String) async throws {
        let now = nowMilliseconds()
        try await storage.write { writer in
            guard let token = try await writer.pushToken(digest: digest), token.container == container else {
                throw CloudKitError(.notFound, "container '\(container)' has no push token '\(digest.prefix(16))…'")
            }
            _ = try await writer.removePushToken(digest: digest, reason: reason, nowMilliseconds: now)
        }
    }
}

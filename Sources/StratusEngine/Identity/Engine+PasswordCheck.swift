extension Engine {
    /// The password check of every sign-in (app users and console operators): repeated failures
    /// for one address are throttled (THROTTLED with `retryAfter`) whether or not the account
    /// exists, a wrong password counts a failure, a right one clears them. Returns the account
    /// `lookUp` found, whose bcrypt hash `hash` gives (an empty hash never matches).
    func checkPassword<Account: Sendable>(
        _ password: String, address: String, hasher: any PasswordHashing,
        lookUp: @Sendable @escaping (any StorageWriter) async throws -> Account?,
        hash: (Account) -> String
    ) async throws -> Account {
        let (failures, account) = try await storage.write { writer in
            (try await writer.signInFailures(address), try await lookUp(writer))
        }
        if let failures,
            let wait = SignInThrottle.wait(
                failures: failures.count, lastMilliseconds: failures.lastMilliseconds,
                nowMilliseconds: nowMilliseconds())
        {
            throw CloudKitError(.throttled, "too many failed sign-ins for this address; try again in \(wait) s", retryAfter: wait)
        }
        guard let account, !hash(account).isEmpty, hasher.verify(password, hash: hash(account)) else {
            let now = nowMilliseconds()
            try await storage.write { writer in try await writer.recordSignInFailure(address, atMilliseconds: now) }
            throw CloudKitError(.authenticationFailed, "the email address or password is wrong")
        }
        if failures != nil { try await storage.write { writer in try await writer.clearSignInFailures(address) } }
        return account
    }
}

import StratusModel

/// What `eraseUser` removed.
public struct UserErasureReport: Sendable {
    /// Records of the user's private databases (both environments).
    public var privateRecords = 0
    /// Public records the user created (their `Users` record among them).
    public var publicRecords = 0
    public var account = UserErasureCounts()
    /// Asset files deleted from the blob store: those no other record references.
    public var assetFiles = 0

    /// Each kind with its count, in the order `stratus user delete` prints them.
    public var lines: [(kind: String, count: Int)] {
        [
            ("account", account.accounts), ("private records", privateRecords), ("public records", publicRecords),
            ("asset files", assetFiles), ("web auth tokens", account.webAuthTokens), ("push tokens", account.pushTokens),
            ("queued pushes", account.queuedPushes), ("courier notifications", account.courierFrames),
            ("subscriptions", account.subscriptions), ("role memberships", account.roleMemberships),
            ("share participations", account.shareParticipations),
        ]
    }
}

extension Engine {
    /// Erases `account` and everything `exportUser` would export of it, plus their sessions, web
    /// auth tokens, push tokens and share participations.
    ///
    /// Every row goes in one write transaction: killed before it commits, nothing is removed.
    /// Asset files go after the commit, one by one under their blob's lock as the blob collector
    /// removes them; the commit already marked those blobs as being collected, so files a kill
    /// leaves behind are removed by the next collection run. `deleteBlob` removes one file.
    public func eraseUser(_ account: UserAccount, deleteBlob: @escaping @Sendable (String) async throws -> Void) async throws -> UserErasureReport {
        let user = account.user.userRecordName, container = account.user.container
        let (erased, marked, stores) = try await storage.write { writer in
            guard try await writer.userAccount(container: container, userRecordName: user) != nil else {
                throw CloudKitError(.notFound, "user '\(user)' no longer exists in '\(container)'")
            }
            var report = UserErasureReport()
            var assets: [String: Int64] = [:]
            for store in try await writer.privateStores(container: container, userRecordName: user) {
                try await Engine.eachRecord(of: store, createdBy: nil, reader: writer) { Engine.collectAssets(of: $0, into: &assets) }
                report.privateRecords += try await writer.eraseStore(store)
            }
            for environment in DatabaseEnvironment.allCases {
                let store = StoreKey(container: container, environment: environment, scope: .public, owner: "")
                try await Engine.eachRecord(of: store, createdBy: user, reader: writer) { record in
                    Engine.collectAssets(of: record, into: &assets)
                    try await writer.deleteRecord(store, zoneName: record.zoneName, recordName: record.recordName)
                    report.publicRecords += 1
                }
            }
            let subscriptionStores = Set(try await writer.subscriptions(container: container, userRecordName: user).map(\.store))
            report.account = try await writer.eraseAccount(container: container, userRecordName: user)
            let marked = try await writer.markUnreferencedBlobs(assets.keys.sorted())
            return (report, marked, subscriptionStores)
        }
        var report = erased
        await forgetCachedCredentials()
        await announce(stores.map { FleetEvent.subscriptionsChanged($0) })
        for store in stores { subscriptionCache.forget(store) }
        for checksum in marked {
            let removed = try await storage.write { writer in
                guard try await writer.lockMarkedBlob(checksum: checksum) else { return false }
                try await deleteBlob(checksum)
                try await writer.deleteBlob(checksum: checksum)
                return true
            }
            if removed { report.assetFiles += 1 }
        }
        return report
    }
}

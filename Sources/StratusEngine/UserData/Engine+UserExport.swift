import StratusModel

/// One line of a user export: a JSON document and the file (a path relative to the export
/// folder) it belongs in.
public struct UserExportLine: Sendable {
    public var file: String
    public var json: String
}

/// What a user export found besides its lines: the asset blobs their records reference.
public struct UserExportSummary: Sendable {
    /// Blob checksum → size in bytes, for every asset of an exported record.
    public var assets: [String: Int64] = [:]
    /// Lines written per file.
    public var lines: [String: Int] = [:]
}

extension Engine {
    /// Records are read in pages of this many, so memory stays flat whatever a database holds.
    static let userDataPageSize = 500

    /// Reads everything `account` owns in its container and hands it to `emit` line by line:
    /// their private database of each environment (`records/private-ENV.jsonl`), the public
    /// records they created (`records/public-ENV.jsonl`), each as the record dictionary
    /// `records/lookup` answers; their subscriptions (`subscriptions.jsonl`) and their places in
    /// shares (`share-participations.jsonl`). Each database is read in one transaction, a
    /// consistent snapshot of it.
    public func exportUser(_ account: UserAccount, emit: @escaping @Sendable (UserExportLine) async throws -> Void) async throws -> UserExportSummary {
        let user = account.user.userRecordName, container = account.user.container
        var summary = UserExportSummary()
        var stores: [(StoreKey, createdBy: String?)] = []
        for environment in DatabaseEnvironment.allCases {
            stores.append((StoreKey(container: container, environment: environment, scope: .private, owner: user), nil))
            stores.append((StoreKey(container: container, environment: environment, scope: .public, owner: ""), user))
        }
        for (store, createdBy) in stores {
            let file = "records/\(store.scope.rawValue)-\(store.environment.rawValue).jsonl"
            let renderer = RecordRenderer(store: store, desiredKeys: nil, numbersAsStrings: false)
            let (count, assets) = try await storage.read { reader in
                var count = 0
                var assets: [String: Int64] = [:]
                try await Engine.eachRecord(of: store, createdBy: createdBy, reader: reader) { record in
                    try await emit(UserExportLine(file: file, json: renderer.render(record).serializedString))
                    Engine.collectAssets(of: record, into: &assets)
                    count += 1
                }
                return (count, assets)
            }
            summary.lines[file] = count
            summary.assets.merge(assets) { first, _ in first }
        }
        let (subscriptions, participations) = try await storage.read { reader in
            (
                try await reader.subscriptions(container: container, userRecordName: user),
                try await reader.shareParticipations(container: container, userRecordName: user)
            )
        }
        for subscription in subscriptions {
            let line: JSONValue = [
                "environment": .string(subscription.store.environment.rawValue),
                "database": .string(subscription.store.scope.rawValue),
                "subscription": subscription.definition,
            ]
            try await emit(UserExportLine(file: "subscriptions.jsonl", json: line.serializedString))
        }
        summary.lines["subscriptions.jsonl"] = subscriptions.count
        for participation in participations {
            let line: JSONValue = [
                "shortGUID": .string(participation.shortGUID), "environment": .string(participation.store.environment.rawValue),
                "zoneID": ZoneID(zoneName: participation.zoneName, ownerRecordName: zoneOwner(participation.store)).json,
                "recordName": .string(participation.recordName), "role": .string(participation.role.rawValue),
                "permission": .string(participation.permission.rawValue), "acceptanceStatus": .string(participation.status.rawValue),
            ]
            try await emit(UserExportLine(file: "share-participations.jsonl", json: line.serializedString))
        }
        summary.lines["share-participations.jsonl"] = participations.count
        return summary
    }

    /// Calls `body` with every record of `store` (only those `createdBy` made, when given), a page at a time.
    static func eachRecord(
        of store: StoreKey, createdBy: String?, reader: any StorageReader,
        _ body: (RecordRow) async throws -> Void
    ) async throws {
        var position: RecordPosition?
        while true {
            let page = try await reader.recordPage(store, createdBy: createdBy, after: position, limit: userDataPageSize)
            for record in page { try await body(record) }
            guard page.count == userDataPageSize, let last = page.last else { return }
            position = RecordPosition(zoneName: last.zoneName, recordName: last.recordName)
        }
    }

    /// Adds the blobs `record`'s asset fields hold to `assets` (checksum → size).
    static func collectAssets(of record: RecordRow, into assets: inout [String: Int64]) {
        for value in record.fields.values {
            for asset in value.assets {
                if let checksum = asset.fileChecksum { assets[checksum] = asset.size ?? 0 }
            }
        }
    }
}

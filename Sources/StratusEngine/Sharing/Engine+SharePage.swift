import StratusModel

/// What the `/share/<guid>` page says about a share: only what a link's holder may know before
/// resolving it (who shared, the share's title, whether a record or a zone).
public struct ShareSummary: Sendable, Hashable {
    public var container: String
    public var ownerName: String
    public var title: String?
    /// The shared record's name; `nil` for a zone-wide share.
    public var rootRecordName: String?
    public var zoneName: String
}

extension Engine {
    public func shareSummary(shortGUID: String) async throws -> ShareSummary? {
        try await storage.read { reader in
            guard let share = try await reader.share(shortGUID: shortGUID) else { return nil }
            let owner = try await reader.userAccount(container: share.store.container, userRecordName: share.owner)
            let record = try await reader.records(share.store, zoneName: share.zoneName, names: [share.recordName])[share.recordName]
            var title: String?
            if case .string(let text)? = record?.fields["cloudkit.title"] { title = text }
            return ShareSummary(
                container: share.store.container, ownerName: owner.map { $0.user.name.isEmpty ? $0.user.userRecordName : $0.user.name } ?? share.owner,
                title: title, rootRecordName: share.rootRecordName, zoneName: share.zoneName)
        }
    }
}

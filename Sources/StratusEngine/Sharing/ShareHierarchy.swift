import StratusModel

/// Which share covers a record: the zone's zone-wide share, or the hierarchy share whose root the
/// record's `parent` chain reaches (the record itself included). Share records cover themselves.
enum ShareHierarchy {
    /// Parent links followed at most; a longer chain (or a cycle) ends the walk.
    static let maximumDepth = 256

    /// The record and its ancestors, nearest first, as far as they exist.
    static func ancestry(_ recordName: String, store: StoreKey, zoneName: String, reader: any StorageReader) async throws -> [String] {
        var chain: [String] = []
        var seen = Set<String>()
        var next: String? = recordName
        while let name = next, chain.count < maximumDepth, seen.insert(name).inserted {
            chain.append(name)
            next = try await reader.records(store, zoneName: zoneName, names: [name])[name]?.parentName
        }
        return chain
    }

    /// The share among `shares` (all of one zone) that covers `recordName`, or `nil`.
    static func covering(
        _ recordName: String, shares: [ShareRow], store: StoreKey, zoneName: String,
        reader: any StorageReader
    ) async throws -> ShareRow? {
        if let zoneWide = shares.first(where: \.isZoneWide) { return zoneWide }
        if let own = shares.first(where: { $0.recordName == recordName }) { return own }
        let roots = Dictionary(shares.compactMap { share in share.rootRecordName.map { ($0, share) } }, uniquingKeysWith: { first, _ in first })
        guard !roots.isEmpty else { return nil }
        for name in try await ancestry(recordName, store: store, zoneName: zoneName, reader: reader) {
            if let share = roots[name] { return share }
        }
        return nil
    }

    /// Refuses a share over what another share of the zone already covers: a zone-wide share in
    /// a zone with shares, any share beside a zone-wide one, a root inside another hierarchy or
    /// above another root.
    static func checkNotShared(_ share: ShareRow, others: [ShareRow], reader: any StorageReader) async throws {
        let others = others.filter { $0.shortGUID != share.shortGUID }
        guard !others.isEmpty else { return }
        if others.contains(where: \.isZoneWide) {
            throw CloudKitError.alreadyShared("zone '\(share.zoneName)' is shared as a whole; change its zone-wide share instead")
        }
        guard let root = share.rootRecordName else {
            throw CloudKitError.alreadyShared("zone '\(share.zoneName)' already holds \(others.count) share(s); a zone-wide share needs a zone without shares")
        }
        if let covering = try await covering(root, shares: others, store: share.store, zoneName: share.zoneName, reader: reader) {
            throw CloudKitError.alreadyShared("record '\(root)' is already in share '\(covering.recordName)' (its root '\(covering.rootRecordName ?? "")' or an ancestor is shared)")
        }
        for other in others {
            guard let otherRoot = other.rootRecordName else { continue }
            if try await ancestry(otherRoot, store: share.store, zoneName: share.zoneName, reader: reader).contains(root) {
                throw CloudKitError.alreadyShared("record '\(root)' has '\(otherRoot)' below it, which is the root of share '\(other.recordName)'")
            }
        }
    }
}

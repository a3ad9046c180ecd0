import StratusModel

/// What a participant may do in one zone of their shared database: the one place sharing
/// permissions are decided. The owner works in their private database and is never asked.
struct ShareAccess: Sendable {
    /// What a request does to a record.
    enum Action: String, Sendable, CaseIterable {
        case read, create, modify, delete
    }

    /// What the record is to the share that covers it.
    enum Target: String, Sendable, CaseIterable {
        case shareRecord, root, member
    }

    /// The outcome of a write to the share record itself by a participant.
    enum Decision: Sendable, Equatable {
        case allowed
        /// Deleting the share record: the participant leaves the share.
        case leave
        case denied(String)
    }

    /// The rule table: `permission` is the participant's (never `.none` for an accepted one).
    static func decide(_ action: Action, on target: Target, permission: SharePermission) -> Decision {
        switch (action, target) {
        case (.read, _):
            return .allowed
        case (.delete, .shareRecord):
            return .leave
        case (_, .shareRecord):
            return .denied("only the owner changes a share; a participant may delete it from their shared database to leave")
        case (.delete, .root):
            return .denied("only the owner deletes the root record of a shared hierarchy")
        case (.create, _), (.modify, _), (.delete, _):
            return permission == .readWrite ? .allowed : .denied("your permission in this share is READ_ONLY")
        }
    }

    let caller: String
    /// The owner's private store.
    let store: StoreKey
    let zoneName: String
    /// The zone's shares the caller accepted (never empty).
    let shares: [ShareRow]

    /// The caller's standing in an owner's zone; ZONE_NOT_FOUND unless they accepted a share in it.
    static func load(caller: String, store: StoreKey, zoneName: String, reader: any StorageReader) async throws -> ShareAccess {
        let accepted = try await reader.shares(store, zoneName: zoneName).filter { share in
            share.participants.contains { $0.userRecordName == caller && $0.status == .accepted }
        }
        guard !accepted.isEmpty else {
            throw CloudKitError(.zoneNotFound, "zone '\(zoneName)' of '\(store.owner)' is not shared with you (or you no longer take part in its share)")
        }
        return ShareAccess(caller: caller, store: store, zoneName: zoneName, shares: accepted)
    }

    func permission(in share: ShareRow) -> SharePermission {
        share.participants.first { $0.userRecordName == caller && $0.status == .accepted }?.permission ?? .none
    }

    func target(_ recordName: String, in share: ShareRow) -> Target {
        if recordName == share.recordName { return .shareRecord }
        return recordName == share.rootRecordName ? .root : .member
    }

    /// The caller's share covering `recordName`, or `nil` when the record is outside their shares.
    func covering(_ recordName: String, reader: any StorageReader) async throws -> ShareRow? {
        try await ShareHierarchy.covering(recordName, shares: shares, store: store, zoneName: zoneName, reader: reader)
    }

    /// Whether the caller may read the record at all.
    func mayRead(_ recordName: String, reader: any StorageReader) async throws -> Bool {
        try await covering(recordName, reader: reader) != nil
    }

    /// Checks one write. A record being created is judged by the share of its `parent` (any
    /// record of a zone-wide share). NOT_FOUND for records outside the caller's shares, as if
    /// they did not exist; ACCESS_DENIED for what the rule table refuses.
    func checkWrite(_ action: Action, recordName: String, newParent: String?, reader: any StorageReader) async throws -> Decision {
        let judged: String
        if action == .create {
            if shares.contains(where: \.isZoneWide) {
                judged = recordName
            } else if let newParent {
                judged = newParent
            } else {
                throw CloudKitError(.accessDenied, "record '\(recordName)' has no parent; a new record in a shared hierarchy needs a parent inside it")
            }
        } else {
            judged = recordName
        }
        guard let share = try await covering(judged, reader: reader) else {
            if action == .create {
                throw CloudKitError(.accessDenied, "parent '\(judged)' is not in a share you take part in")
            }
            throw CloudKitError(.notFound, "record '\(recordName)' does not exist in zone '\(zoneName)'")
        }
        let kind: Target = action == .create ? .member : target(recordName, in: share)
        let decision = ShareAccess.decide(action, on: kind, permission: permission(in: share))
        if case .denied(let reason) = decision { throw CloudKitError(.accessDenied, reason) }
        // A modify that moves a record must keep it inside the caller's share.
        if action == .modify, let newParent, !share.isZoneWide,
            try await ShareHierarchy.covering(newParent, shares: [share], store: store, zoneName: zoneName, reader: reader) == nil
        {
            throw CloudKitError(.accessDenied, "parent '\(newParent)' is outside the share; a record stays in the hierarchy it is shared in")
        }
        return decision
    }
}

import StratusModel

extension OperationContext {
    /// Creates or edits a share record in the owner's private database (docs/sharing.md). Returns
    /// the saved share and, when the root gained its `share`, the saved root.
    func saveShare(
        _ operation: RecordOperation, request shareRequest: ShareRequest, batch: [RecordOperation],
        writer: any StorageWriter
    ) async throws -> (share: RecordRow, root: RecordRow?, created: Bool) {
        guard store.scope == .private else {
            throw CloudKitError.badRequest("\(operation.path): shares live in a custom zone of the owner's private database")
        }
        guard zoneName != ZoneID.defaultZoneName else {
            throw CloudKitError.badRequest("\(operation.path): records of the default zone cannot be shared; move them to a custom zone")
        }
        let existing = try await writer.records(store, zoneName: zoneName, names: [operation.recordName])[operation.recordName]
        switch operation.type {
        case .create:
            if let existing {
                throw CloudKitError(.exists, "share '\(operation.recordName)' already exists; fetch it and update", serverRecord: renderer.render(existing))
            }
        case .update, .replace:
            guard let existing else { throw CloudKitError(.notFound, "share '\(operation.recordName)' does not exist in zone '\(zoneName)'") }
            try checkChangeTag(operation, existing)
        default:
            break
        }
        if let existing, !ShareRequest.isShareType(existing.recordType) {
            throw CloudKitError.badRequest("record '\(operation.recordName)' is a '\(existing.recordType)'; it cannot become a share")
        }
        let zoneShares = try await writer.shares(store, zoneName: zoneName)
        let previous = zoneShares.first { $0.recordName == operation.recordName }
        let root = try rootName(operation, shareRequest, previous: previous, batch: batch)
        if let root, try await writer.records(store, zoneName: zoneName, names: [root])[root] == nil {
            throw CloudKitError(.notFound, "\(operation.path).record.forRecord: record '\(root)' does not exist in zone '\(zoneName)'")
        }
        let share = ShareRow(
            store: store, zoneName: zoneName, recordName: operation.recordName, rootRecordName: root,
            shortGUID: previous?.shortGUID ?? ShareState.newShortGUID(),
            publicPermission: shareRequest.publicPermission ?? previous?.publicPermission ?? .none,
            participants: try await participants(shareRequest, previous: previous, writer: writer))
        try await ShareHierarchy.checkNotShared(share, others: zoneShares, reader: writer)
        var fields = (operation.type.replacesFields || existing == nil) ? [:] : existing!.fields
        for (name, value) in try shareFields(operation) { fields[name] = value } // nil clears
        let shareWriter = ShareWriter(writer: writer, now: now)
        let saved = try await shareWriter.persist(share, fields: fields, existing: existing, by: caller.effectiveRecordName)
        let linkedRoot = try await root.asyncMap { try await shareWriter.linkRoot($0, to: share.recordName, store: store, zoneName: zoneName, by: caller.effectiveRecordName) }
        return (saved, linkedRoot ?? nil, existing == nil)
    }

    /// The hierarchy's root: named by `forRecord` on a new share (and saved in the same request),
    /// fixed once the share exists; `nil` for the zone-wide share.
    private func rootName(_ operation: RecordOperation, _ request: ShareRequest, previous: ShareRow?, batch: [RecordOperation]) throws -> String? {
        if operation.recordName == ShareRequest.zoneWideRecordName {
            if request.rootRecordName != nil {
                throw CloudKitError.badRequest("\(operation.path).record.forRecord: the zone-wide share '\(ShareRequest.zoneWideRecordName)' has no root record; leave forRecord out")
            }
            return nil
        }
        if let previous {
            if let asked = request.rootRecordName, asked != previous.rootRecordName {
                throw CloudKitError.badRequest(
                    "\(operation.path).record.forRecord: share '\(operation.recordName)' shares '\(previous.rootRecordName ?? "")'; a share's root cannot change — delete it and share '\(asked)' anew")
            }
            return previous.rootRecordName
        }
        guard let root = request.rootRecordName else {
            throw CloudKitError.badRequest(
                "\(operation.path).record.forRecord: is required to create a share; name its root record (or call the share '\(ShareRequest.zoneWideRecordName)' to share the zone)")
        }
        guard batch.contains(where: { $0.recordName == root && !$0.type.isDelete }) else {
            throw CloudKitError.badRequest("\(operation.path): a new share must be saved with its root record '\(root)' in the same records/modify request")
        }
        return root
    }

    /// The participant list after this save: entries matched to existing participants keep their
    /// id and status; new ones are invited; added users no longer listed are removed; public
    /// users stay until the public permission becomes NONE.
    private func participants(_ request: ShareRequest, previous: ShareRow?, writer: any StorageWriter) async throws -> [ShareParticipant] {
        var result = previous?.participants ?? []
        let ownerEmail = try await writer.userAccount(container: store.container, userRecordName: store.owner)?.email
        if let invitees = request.participants {
            var listed = Set<String>()
            for invitee in invitees {
                if invitee.userRecordName == store.owner || (invitee.email != nil && invitee.email == ownerEmail) { continue }
                if let index = result.firstIndex(where: { invitee.names($0) }) {
                    result[index].permission = invitee.permission
                    if result[index].status == .removed, invitee.role == .user { result[index].status = .invited }
                    listed.insert(result[index].participantID)
                    continue
                }
                guard invitee.participantID == nil else {
                    throw CloudKitError.badRequest("participantId '\(invitee.participantID!)' is not a participant of this share; name a new participant by its lookupInfo")
                }
                var user = invitee.userRecordName
                if user == nil, let email = invitee.email {
                    user = try await writer.userAccount(container: store.container, email: email)?.user.userRecordName
                }
                let participant = ShareParticipant(
                    participantID: ShareState.newParticipantID(), userRecordName: user, email: invitee.email,
                    phone: invitee.phone, role: .user, permission: invitee.permission, status: .invited, addedAt: now)
                result.append(participant)
                listed.insert(participant.participantID)
            }
            // Public users joined by themselves; the owner's list names the users they added.
            for index in result.indices where result[index].role == .user && !listed.contains(result[index].participantID) {
                result[index].status = .removed
            }
        }
        let publicPermission = request.publicPermission ?? previous?.publicPermission ?? .none
        if publicPermission == .none {
            for index in result.indices where result[index].role == .publicUser { result[index].status = .removed }
        }
        return result
    }

    /// The share record's fields: only CloudKit's share keys.
    private func shareFields(_ operation: RecordOperation) throws -> [String: FieldValue?] {
        var fields: [String: FieldValue?] = [:]
        for (name, input) in operation.fields {
            guard ShareRequest.fieldNames.contains(name) else {
                throw CloudKitError.badRequest("\(operation.path).record.fields.\(name): a share record holds only \(ShareRequest.fieldNames.sorted().joined(separator: ", "))")
            }
            switch try input.decode(expected: nil) {
            case .value(let value): fields[name] = .some(value)
            case .clear: fields[name] = .some(nil)
            }
        }
        return fields
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

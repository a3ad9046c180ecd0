import StratusModel

extension OperationContext {
    /// The outcome of a records/modify operation that is a sharing matter: the owner saving a
    /// share, a participant touching a share record (deleting it is leaving). `nil`: an ordinary
    /// record operation, for `apply`.
    func applySharing(
        _ operation: RecordOperation, batch: [RecordOperation],
        writer: any StorageWriter
    ) async throws -> (outcome: OperationOutcome, root: RecordRow?)? {
        if let shareAccess {
            if let share = shareAccess.shares.first(where: { $0.recordName == operation.recordName }) {
                let action: ShareAccess.Action = operation.type.isDelete ? .delete : .modify
                let decision = ShareAccess.decide(action, on: .shareRecord, permission: shareAccess.permission(in: share))
                guard decision == .leave else {
                    if case .denied(let reason) = decision { throw CloudKitError(.accessDenied, reason) }
                    return nil
                }
                return (try await leave(share, writer: writer), nil)
            }
            if operation.share != nil {
                throw CloudKitError(.accessDenied, "only the owner of a zone shares its records; a participant cannot create shares")
            }
            return nil
        }
        guard !operation.type.isDelete else { return nil }
        var request = operation.share
        if request == nil, operation.recordType == nil,
            let existing = try await writer.records(store, zoneName: zoneName, names: [operation.recordName])[operation.recordName],
            ShareRequest.isShareType(existing.recordType)
        {
            request = ShareRequest()
        }
        guard let request else { return nil }
        let saved = try await saveShare(operation, request: request, batch: batch, writer: writer)
        return (.saved(saved.share, saved.created ? .create : .update), saved.root)
    }

    /// A participant leaves: they become REMOVED; the owner's records stay as they are.
    private func leave(_ share: ShareRow, writer: any StorageWriter) async throws -> OperationOutcome {
        var share = share
        for index in share.participants.indices where share.participants[index].userRecordName == caller.effectiveRecordName {
            share.participants[index].status = .removed
        }
        let record = try await ShareWriter(writer: writer, now: now).rewrite(share, by: caller.effectiveRecordName)
        return .deleted(zone: zoneName, name: share.recordName, last: record, cascaded: [])
    }
}

import StratusModel

extension OperationContext {
    /// A participant's write, judged by `ShareAccess` before anything is written. Share records
    /// are not written this way (a participant's delete of one is handled as leaving).
    func checkShareAccess(_ access: ShareAccess, _ operation: RecordOperation, existing: RecordRow?, writer: any StorageWriter) async throws {
        let action: ShareAccess.Action = operation.type.isDelete ? .delete : (existing == nil ? .create : .modify)
        let newParent: String?
        switch operation.parent {
        case .keep: newParent = existing?.parentName
        case .clear: newParent = nil
        case .set(let name): newParent = name
        }
        if action == .create, let newParent, try await writer.records(store, zoneName: zoneName, names: [newParent])[newParent] == nil {
            throw CloudKitError(.validatingReferenceError, "parent '\(newParent)' does not exist in zone '\(zoneName)'")
        }
        _ = try await access.checkWrite(action, recordName: operation.recordName, newParent: newParent, reader: writer)
    }
}

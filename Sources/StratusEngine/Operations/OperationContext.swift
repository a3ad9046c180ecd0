import Crypto
import StratusModel

/// Applies one records/modify operation inside the batch's write transaction. Every check runs
/// before the first write of the operation, so a failed operation leaves nothing behind.
struct OperationContext: Sendable {
    let store: StoreKey
    let zoneName: String
    let caller: Caller
    let access: AccessPolicy
    let mode: SchemaMode
    let limits: EngineLimits
    let now: Int64
    /// Opens asset receipts.
    let receiptEnvelope: SignedEnvelope
    /// Asset bytes the store may reference; `nil`: no limit.
    let assetQuota: Int64?
    /// Set when a participant writes through their shared database: what their shares allow.
    var shareAccess: ShareAccess? = nil

    var renderer: RecordRenderer { RecordRenderer(store: store, desiredKeys: nil, numbersAsStrings: false) }

    /// `current`: the batch's records as read before its first operation, while still current
    /// (see `modifyRecords`); `nil`: the record is read now.
    func apply(
        _ operation: RecordOperation, current: [String: RecordRow]?, schema: inout Schema, changedTypes: inout Set<String>,
        writer: any StorageWriter
    ) async throws -> OperationOutcome {
        let existing: RecordRow?
        if let current {
            existing = current[operation.recordName]
        } else {
            existing = try await writer.records(store, zoneName: zoneName, names: [operation.recordName])[operation.recordName]
        }
        try checkPermission(operation, existing: existing)
        if let shareAccess { try await checkShareAccess(shareAccess, operation, existing: existing, writer: writer) }
        if operation.type.isDelete {
            return try await delete(operation, existing: existing, writer: writer)
        }
        switch operation.type {
        case .create:
            if let existing {
                throw CloudKitError(
                    .exists, "record '\(operation.recordName)' already exists; fetch it and update, or use forceUpdate",
                    serverRecord: renderer.render(existing))
            }
        case .update, .replace:
            guard let existing else {
                throw CloudKitError(.notFound, "record '\(operation.recordName)' does not exist in zone '\(zoneName)'")
            }
            try checkChangeTag(operation, existing)
        default:
            if existing == nil, operation.recordType == nil {
                throw CloudKitError.badRequest("\(operation.path).record.recordType: is required because record '\(operation.recordName)' does not exist and \(operation.type.rawValue) will create it")
            }
        }
        let recordType = operation.recordType ?? existing!.recordType
        if existing == nil, recordType == CloudKitSystemType.users {
            // One per user, made by the server with the account; a client-made one would pose as a user.
            throw CloudKitError.badRequest("\(operation.path).record.recordType: '\(recordType)' records are made by the server, one per user, when the account is created; use another record type")
        }
        if let existing, existing.recordType != recordType {
            throw CloudKitError.badRequest("record '\(operation.recordName)' is a '\(existing.recordType)'; it cannot become a '\(recordType)'")
        }
        let (resolved, typeSchema) = try FieldResolver(mode: mode).resolve(
            fields: operation.fields, recordType: recordType, existing: schema.recordTypes[recordType],
            path: "\(operation.path).record.fields")
        if schema.recordTypes[recordType] != typeSchema {
            schema.recordTypes[recordType] = typeSchema
            changedTypes.insert(recordType)
        }
        var fields =
            (operation.type.replacesFields || existing == nil)
            ? (existing?.mayHoldReservedFields == true ? ReservedField.carried(from: existing?.fields) : [:]) : existing!.fields
        try operation.parent.applied(to: &fields, recordName: operation.recordName, path: operation.path)
        let receipts = AssetReceiptCheck(store: store, zoneName: zoneName, recordName: operation.recordName, envelope: receiptEnvelope, now: now)
        var addedAssets: [AssetValue] = []
        for (name, value) in resolved {
            guard let value, !value.assets.isEmpty else { fields[name] = value; continue }
            let checked = try await receipts.checked(value, field: name, existing: existing?.fields[name], writer: writer)
            fields[name] = checked
            addedAssets += checked.assets
        }
        try await checkAssetQuota(addedAssets, writer: writer)
        let encodedFields = try encodeWithinSizeLimit(fields, operation)
        try await checkValidatedReferences(fields, writer: writer)
        let stamp = RecordStamp(timestamp: now, userRecordName: caller.effectiveRecordName)
        let row = RecordRow(
            zoneName: zoneName, recordName: operation.recordName, recordType: recordType, changeTag: "",
            fields: fields, created: existing?.created ?? stamp, modified: stamp)
        return .saved(
            try await writer.saveRecord(store, record: row, encodedFields: encodedFields, recordType: typeSchema, replacing: existing != nil),
            existing == nil ? .create : .update)
    }

    /// Creating needs CREATE on the type, changing or deleting an existing record WRITE (with
    /// `_creator` when the caller created it). Checked before anything else, so a refused caller
    /// learns nothing about the record, not even from a conflict.
    func checkPermission(_ operation: RecordOperation, existing: RecordRow?) throws {
        guard !access.isUnrestricted else { return }
        if let existing {
            guard access.may(.write, recordType: existing.recordType, creator: existing.created.userRecordName) else {
                throw access.denial(.write, recordType: existing.recordType)
            }
        } else if let recordType = operation.recordType, !operation.type.isDelete {
            guard access.may(.create, recordType: recordType, creator: nil) else {
                throw access.denial(.create, recordType: recordType)
            }
        }
    }

    func checkChangeTag(_ operation: RecordOperation, _ existing: RecordRow) throws {
        guard operation.changeTag == existing.changeTag else {
            throw CloudKitError(
                .conflict,
                "record '\(operation.recordName)' changed on the server (your tag '\(operation.changeTag ?? "")', server tag '\(existing.changeTag)'); merge with serverRecord and retry",
                serverRecord: renderer.render(existing))
        }
    }

    /// Assets new to the store must fit in its quota (an asset the store already references costs nothing).
    func checkAssetQuota(_ assets: [AssetValue], writer: any StorageWriter) async throws {
        guard let assetQuota, !assets.isEmpty else { return }
        var adding: [String: Int64] = [:]
        for asset in assets {
            guard let checksum = asset.fileChecksum, adding[checksum] == nil else { continue }
            if try await !writer.storeReferencesBlob(store, checksum: checksum) { adding[checksum] = asset.size ?? 0 }
        }
        let added = adding.values.reduce(0, +)
        guard added > 0 else { return }
        let used = try await writer.assetUsage(store)
        if used + added > assetQuota {
            let whose = store.scope == .public ? "the public database of \(store.container)" : "this user's private database"
            throw CloudKitError(
                .quotaExceeded,
                "\(whose) holds \(used) bytes of assets; this record adds \(added) bytes, past its quota of \(assetQuota) bytes — delete records with assets or ask the operator for more space")
        }
    }

    /// The stored form of the fields, refused when over the record-size limit. Storage writes
    /// this same text, so a save serializes its fields once.
    func encodeWithinSizeLimit(_ fields: [String: FieldValue], _ operation: RecordOperation) throws -> String {
        let encoded = RecordRow.encodedFields(fields)
        let size = encoded.utf8.count
        if size > limits.maximumRecordBytes {
            throw CloudKitError.badRequest("record '\(operation.recordName)' is \(size) bytes; the limit is \(limits.maximumRecordBytes) bytes excluding assets — store large data as an asset")
        }
        return encoded
    }

    /// A VALIDATE reference must point at a record that exists now.
    func checkValidatedReferences(_ fields: [String: FieldValue], writer: any StorageWriter) async throws {
        for (name, value) in fields {
            for reference in value.references where reference.action == .validate {
                let targetZone = reference.zoneID?.zoneName ?? zoneName
                let found = try await writer.records(store, zoneName: targetZone, names: [reference.recordName])
                if found.isEmpty {
                    throw CloudKitError(
                        .validatingReferenceError,
                        "field '\(name)' references record '\(reference.recordName)' in zone '\(targetZone)' with VALIDATE, and that record does not exist")
                }
            }
        }
    }

    /// Deletes the record and, transitively, every record that points at a deleted record with
    /// DELETE_SELF — refused if anything outside that set still points at one with VALIDATE.
    func delete(_ operation: RecordOperation, existing: RecordRow?, writer: any StorageWriter) async throws -> OperationOutcome {
        guard let existing else {
            throw CloudKitError(.notFound, "record '\(operation.recordName)' does not exist in zone '\(zoneName)'")
        }
        if operation.type == .delete { try checkChangeTag(operation, existing) }
        struct Key: Hashable { var zone: String; var name: String }
        var doomed: [Key] = [Key(zone: zoneName, name: operation.recordName)]
        var doomedSet = Set(doomed)
        var validators: [(holder: Key, target: Key)] = []
        var queue = doomed
        while let target = queue.popLast() {
            for referrer in try await writer.referrers(store, zoneName: target.zone, recordName: target.name) {
                let holder = Key(zone: referrer.zoneName, name: referrer.recordName)
                switch referrer.action {
                case .deleteSelf:
                    if doomedSet.insert(holder).inserted {
                        doomed.append(holder)
                        queue.append(holder)
                        if doomed.count > limits.maximumCascade {
                            throw CloudKitError.badRequest(
                                "deleting '\(operation.recordName)' would cascade to more than \(limits.maximumCascade) records through DELETE_SELF references; delete them in smaller steps")
                        }
                    }
                case .validate:
                    validators.append((holder, target))
                case .none:
                    break
                }
            }
        }
        if let blocker = validators.first(where: { !doomedSet.contains($0.holder) }) {
            throw CloudKitError(
                .validatingReferenceError,
                "record '\(blocker.target.name)' is referenced by '\(blocker.holder.name)' with VALIDATE; delete or change '\(blocker.holder.name)' first")
        }
        // The cascaded records' last states, so query subscriptions fire for them too.
        var cascaded: [RecordRow] = []
        for key in doomed.dropFirst() {
            if let row = try await writer.records(store, zoneName: key.zone, names: [key.name])[key.name] { cascaded.append(row) }
        }
        for key in doomed {
            try await writer.deleteRecord(store, zoneName: key.zone, recordName: key.name)
        }
        return .deleted(zone: zoneName, name: operation.recordName, last: existing, cascaded: cascaded)
    }
}

extension FieldValue {
    /// The references held by this value (one, or each element of a reference list).
    public var references: [ReferenceValue] {
        switch self {
        case .reference(let reference): return [reference]
        case .list(_, let elements): return elements.flatMap(\.references)
        default: return []
        }
    }
}

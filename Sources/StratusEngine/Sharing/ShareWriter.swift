import StratusModel

/// Writes a share: its row and participants, its record (whose state and change tag follow every
/// change, so it shows in change feeds) and the root's `share` reference. Runs inside a
/// records/modify or records/accept transaction.
struct ShareWriter {
    /// Participants a share may have, its owner included.
    static let maximumParticipants = 100
    static let recordTypeSchema = RecordTypeSchema(name: ShareRequest.recordType)

    let writer: any StorageWriter
    let now: Int64

    /// Stores `share` and rewrites its record with `fields` (the record's client fields),
    /// modified by `by`. Returns the saved share record.
    func persist(_ share: ShareRow, fields: [String: FieldValue], existing: RecordRow?, by: String) async throws -> RecordRow {
        let active = share.participants.filter { $0.status != .removed }.count + 1
        if active > ShareWriter.maximumParticipants {
            throw CloudKitError.tooManyParticipants(active, limit: ShareWriter.maximumParticipants)
        }
        try await writer.saveShare(share)
        var stored = fields.filter { !ReservedField.isReserved($0.key) }
        stored[ReservedField.shareState] = .string(try await ShareState.json(share, reader: writer).serializedString)
        let stamp = RecordStamp(timestamp: now, userRecordName: by)
        let row = RecordRow(
            zoneName: share.zoneName, recordName: share.recordName, recordType: ShareRequest.recordType, changeTag: "",
            fields: stored, created: existing?.created ?? stamp, modified: stamp)
        return try await writer.saveRecord(share.store, record: row, recordType: ShareWriter.recordTypeSchema, replacing: existing != nil)
    }

    /// Points the root at its share (or at none), saving it only when that changes. Returns the
    /// saved root, or `nil` when nothing changed.
    func linkRoot(_ rootName: String, to shareName: String?, store: StoreKey, zoneName: String, by: String) async throws -> RecordRow? {
        guard var root = try await writer.records(store, zoneName: zoneName, names: [rootName])[rootName] else { return nil }
        let current: String? = if case .reference(let reference)? = root.fields[ReservedField.share] { reference.recordName } else { nil }
        guard current != shareName else { return nil }
        root.fields[ReservedField.share] = shareName.map { .reference(ReferenceValue(recordName: $0)) }
        root.modified = RecordStamp(timestamp: now, userRecordName: by)
        let schema =
            try await writer.schema(container: store.container, environment: store.environment).recordTypes[root.recordType]
            ?? RecordTypeSchema(name: root.recordType)
        return try await writer.saveRecord(store, record: root, recordType: schema, replacing: true)
    }

    /// Rewrites the share record after its participants changed outside records/modify
    /// (acceptance, a participant leaving).
    func rewrite(_ share: ShareRow, by: String) async throws -> RecordRow {
        let existing = try await writer.records(share.store, zoneName: share.zoneName, names: [share.recordName])[share.recordName]
        return try await persist(share, fields: existing?.fields ?? [:], existing: existing, by: by)
    }

    /// Ends the shares of a zone whose record or root a batch deleted: their rows go, a root
    /// that remains loses its `share`, a share whose root went is deleted too.
    func reconcile(store: StoreKey, zoneName: String, by: String) async throws {
        for share in try await writer.shares(store, zoneName: zoneName) {
            var names = [share.recordName]
            if let root = share.rootRecordName { names.append(root) }
            let present = try await writer.records(store, zoneName: zoneName, names: names)
            let recordGone = present[share.recordName] == nil
            let rootGone = share.rootRecordName.map { present[$0] == nil } ?? false
            guard recordGone || rootGone else { continue }
            try await writer.deleteShare(shortGUID: share.shortGUID)
            if !recordGone { try await writer.deleteRecord(store, zoneName: zoneName, recordName: share.recordName) }
            if let root = share.rootRecordName, !rootGone {
                _ = try await linkRoot(root, to: nil, store: store, zoneName: zoneName, by: by)
            }
        }
    }
}

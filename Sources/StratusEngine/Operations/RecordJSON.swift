import StratusModel

/// Renders stored records as CKWS record dictionaries.
package struct RecordRenderer {
    let store: StoreKey
    /// `nil`: every field; `[]`: system fields only.
    let desiredKeys: Set<String>?
    let numbersAsStrings: Bool
    /// Signs download URLs for rendered assets; `nil` renders assets without them.
    var assetLinks: AssetLinks? = nil
    /// The user the response is for: a share record names their entry `currentUserParticipant`.
    var viewer: String? = nil

    package init(store: StoreKey, desiredKeys: Set<String>?, numbersAsStrings: Bool, assetLinks: AssetLinks? = nil, viewer: String? = nil) {
        self.store = store
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
        self.assetLinks = assetLinks
        self.viewer = viewer
    }

    func zoneJSON(_ zoneName: String) -> JSONValue {
        ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)).json
    }

    /// The record dictionary, written straight to bytes (no tree per record). Its fields are the
    /// stored text spliced in when the response sends exactly that (`verbatimFields`).
    package func render(_ record: RecordRow) -> JSONValue {
        let stored = verbatimFields(record)
        var out = JSONObjectWriter(reservingCapacity: 320 + (stored?.text.utf8.count ?? 256))
        out.write("recordName", string: record.recordName)
        out.write("recordType", string: record.recordType)
        out.write("recordChangeTag", string: record.changeTag)
        let owner = zoneOwner(store)
        out.beginObject("zoneID")
        out.write("zoneName", string: record.zoneName)
        out.write("ownerRecordName", string: owner)
        out.endObject()
        out.beginObject("created")
        write(record.created, into: &out)
        out.endObject()
        out.beginObject("modified")
        write(record.modified, into: &out)
        out.endObject()
        out.write("deleted", bool: false)
        out.beginObject("pluginFields")
        out.endObject()
        let reserved = record.mayHoldReservedFields
        if reserved { writeReserved(record, into: &out) }
        if desiredKeys?.isEmpty != true {
            if !reserved, let stored, writeVerbatim(stored, into: &out) {
                // The stored text (or the desired members of it) went out as it is.
            } else {
                var fields: [String: JSONValue] = [:]
                for (name, value) in record.fields where !ReservedField.isReserved(name) && desiredKeys?.contains(name) ?? true {
                    let shown = assetLinks.map { $0.linked(value) } ?? value
                    fields[name] = shown.fieldJSON(numbersAsStrings: numbersAsStrings)
                }
                out.write("fields", .object(fields))
            }
        }
        return .raw(out.finish())
    }

    /// The stored fields text when it holds what this response sends: numbers as numbers, no
    /// asset that gets a download link. Otherwise the fields render from their typed values.
    func verbatimFields(_ record: RecordRow) -> StoredFields? {
        guard let stored = record.storedFields, !numbersAsStrings else { return nil }
        if assetLinks != nil, stored.mayHoldAssets { return nil }
        return stored
    }

    /// Writes `fields` from the stored text: all of it, or the desired members of it. False
    /// (nothing written) when the text cannot be split into members without parsing.
    private func writeVerbatim(_ stored: StoredFields, into out: inout JSONObjectWriter) -> Bool {
        guard let desiredKeys else {
            out.write("fields", verbatim: stored.text)
            return true
        }
        var text = stored.text
        return text.withUTF8 { bytes in
            guard let members = JSONMemberScanner.members(of: bytes) else { return false }
            out.beginObject("fields")
            for member in members where desiredKeys.contains(member.key) {
                out.write(member: member.key, verbatim: UnsafeBufferPointer(rebasing: bytes[member.value]))
            }
            out.endObject()
            return true
        }
    }

    /// The system keys kept among the stored fields (`ReservedField`): `parent`, a root's
    /// `share`, a share record's state.
    private func writeReserved(_ record: RecordRow, into out: inout JSONObjectWriter) {
        let fields = record.fields
        let zoneID = zoneJSON(record.zoneName)
        if case .reference(let parent)? = fields[ReservedField.parent] {
            out.write("parent", ["recordName": .string(parent.recordName), "zoneID": zoneID])
        }
        if case .reference(let share)? = fields[ReservedField.share] {
            out.write("share", ["recordName": .string(share.recordName), "zoneID": zoneID])
        }
        if case .string(let state)? = fields[ReservedField.shareState] {
            for (key, value) in ShareState.responseMembers(stateText: state, zoneID: zoneID, viewer: viewer, baseURL: assetLinks?.baseURL) {
                out.write(member: key, value)
            }
        }
    }

    private func write(_ stamp: RecordStamp, into out: inout JSONObjectWriter) {
        out.write("timestamp", integer: stamp.timestamp)
        out.write("userRecordName", string: stamp.userRecordName)
        out.write("deviceID", string: stamp.deviceID)
    }

    /// A tombstone: `recordType` (a Stratus addition to CloudKit's deletion entry) when known.
    package func renderDeleted(zoneName: String, recordName: String, recordType: String? = nil) -> JSONValue {
        var deletion: [String: JSONValue] = ["recordName": .string(recordName), "deleted": .bool(true), "zoneID": zoneJSON(zoneName)]
        if let recordType, !recordType.isEmpty { deletion["recordType"] = .string(recordType) }
        return .object(deletion)
    }
}

/// The `ownerRecordName` a zone ID carries: the user for private stores, CloudKit's default-owner
/// placeholder for the public database.
package func zoneOwner(_ store: StoreKey) -> String {
    store.owner.isEmpty ? "__defaultOwner__" : store.owner
}

/// A per-item error element: `{recordName, reason, serverErrorCode, …}`.
package func recordErrorJSON(recordName: String?, _ error: CloudKitError, uuid: String) -> JSONValue {
    var members: [String: JSONValue] = [
        "reason": .string(error.reason),
        "serverErrorCode": .string(error.code.rawValue),
        "uuid": .string(uuid),
    ]
    if let recordName { members["recordName"] = .string(recordName) }
    if let retryAfter = error.retryAfter { members["retryAfter"] = .int(Int64(retryAfter)) }
    if let serverRecord = error.serverRecord { members["serverRecord"] = serverRecord }
    return .object(members)
}

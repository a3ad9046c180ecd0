import StratusModel

/// Renders stored records as CKWS record dictionaries.
struct RecordRenderer {
    let store: StoreKey
    /// `nil`: every field; `[]`: system fields only.
    let desiredKeys: Set<String>?
    let numbersAsStrings: Bool
    /// Signs download URLs for rendered assets; `nil` renders assets without them.
    var assetLinks: AssetLinks? = nil

    func zoneJSON(_ zoneName: String) -> JSONValue {
        ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)).json
    }

    func render(_ record: RecordRow) -> JSONValue {
        var members: [String: JSONValue] = [
            "recordName": .string(record.recordName),
            "recordType": .string(record.recordType),
            "recordChangeTag": .string(record.changeTag),
            "zoneID": zoneJSON(record.zoneName),
            "created": record.created.json,
            "modified": record.modified.json,
            "deleted": .bool(false),
            "pluginFields": .object([:]),
        ]
        if desiredKeys?.isEmpty != true {
            var fields: [String: JSONValue] = [:]
            for (name, value) in record.fields where desiredKeys?.contains(name) ?? true {
                let shown = assetLinks.map { $0.linked(value) } ?? value
                fields[name] = shown.fieldJSON(numbersAsStrings: numbersAsStrings)
            }
            members["fields"] = .object(fields)
        }
        return .object(members)
    }

    func renderDeleted(zoneName: String, recordName: String) -> JSONValue {
        .object(["recordName": .string(recordName), "deleted": .bool(true), "zoneID": zoneJSON(zoneName)])
    }
}

/// The `ownerRecordName` a zone ID carries: the user for private stores, CloudKit's default-owner
/// placeholder for the public database.
func zoneOwner(_ store: StoreKey) -> String {
    store.owner.isEmpty ? "__defaultOwner__" : store.owner
}

/// A per-item error element: `{recordName, reason, serverErrorCode, …}`.
func recordErrorJSON(recordName: String?, _ error: CloudKitError, uuid: String) -> JSONValue {
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

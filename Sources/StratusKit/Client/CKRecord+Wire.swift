import Foundation
import StratusModel

extension CKRecord {
    /// The `records/modify` operation saving this record under a save policy (docs/protocol.md §4.3):
    /// a new record is created; a fetched one is updated with its changed keys against its change
    /// tag; `changedKeys` forces an update, `allKeys` forces a replace with every key.
    /// `replacing` holds field values to send instead of the record's own (assets with upload receipts).
    func saveOperation(policy: CKModifyRecordsOperation.RecordSavePolicy, replacing: [String: RecordFieldValue] = [:]) -> JSONValue {
        let operationType: String
        let keys: [String]
        switch policy {
        case _ where self is CKShare, .ifServerRecordUnchanged:
            // A share is always saved against its change tag, whatever the policy.
            operationType = recordChangeTag == nil ? "create" : "update"
            keys = recordChangeTag == nil ? allKeys() : changedKeys()
        case .allKeys:
            operationType = "forceReplace"
            keys = allKeys()
        case .changedKeys:
            operationType = "forceUpdate"
            keys = recordChangeTag == nil ? allKeys() : changedKeys()
        }
        var fieldsJSON: [String: JSONValue] = [:]
        for key in keys {
            if let value = replacing[key] ?? fields[key] {
                fieldsJSON[key] = value.wire(holderZone: recordID.zoneID).fieldJSON()
            } else if recordChangeTag != nil {
                fieldsJSON[key] = .object(["value": .null])
            }
        }
        var record: [String: JSONValue] = [
            "recordName": .string(recordID.recordName),
            "recordType": .string(recordType),
            "fields": .object(fieldsJSON),
        ]
        if let recordChangeTag, operationType == "update" { record["recordChangeTag"] = .string(recordChangeTag) }
        if let parent, parentChanged || recordChangeTag == nil {
            record["parent"] = .object(["recordName": .string(parent.recordID.recordName)])
        } else if parent == nil, parentChanged {
            record["parent"] = .null
        }
        if let share = self as? CKShare { record.merge(share.shareKeys) { _, shareKey in shareKey } }
        return .object(["operationType": .string(operationType), "record": .object(record)])
    }

    /// Builds a record from a CKWS record dictionary. `zoneID` is the zone the request named.
    convenience init?(wire json: JSONValue, zoneID: CKRecordZone.ID) {
        guard let recordID = Self.recordID(wire: json, zoneID: zoneID) else { return nil }
        self.init(recordType: json["recordType"]?.stringValue ?? "", recordID: recordID)
        applyServerState(json)
    }

    /// Builds the record a CKWS record dictionary describes: a ``CKShare`` for share records.
    static func fromWire(_ json: JSONValue, zoneID: CKRecordZone.ID) -> CKRecord? {
        guard CKShare.isShareType(json["recordType"]?.stringValue) else { return CKRecord(wire: json, zoneID: zoneID) }
        guard let recordID = recordID(wire: json, zoneID: zoneID) else { return nil }
        let share = CKShare(recordID: recordID)
        share.applyServerState(json)
        return share
    }

    /// The ID of a CKWS record dictionary; its zone is `zoneID` unless the dictionary names another.
    static func recordID(wire json: JSONValue, zoneID: CKRecordZone.ID) -> CKRecord.ID? {
        guard let name = json["recordName"]?.stringValue else { return nil }
        let zone =
            (try? json["zoneID"].map { try ZoneID(json: $0, path: "zoneID") }).flatMap { $0 }
            .map { CKRecordZone.ID(wire: $0, context: zoneID) } ?? zoneID
        return CKRecord.ID(recordName: name, zoneID: zone)
    }

    /// Takes the system fields, and any fields, the server sent.
    func applyServerState(_ json: JSONValue) {
        recordChangeTag = json["recordChangeTag"]?.stringValue ?? recordChangeTag
        let zone = recordID.zoneID
        if let created = json["created"] {
            if let ms = created["timestamp"]?.int64Value { creationDate = Date(milliseconds: ms) }
            if let user = created["userRecordName"]?.stringValue, !user.isEmpty {
                creatorUserRecordID = CKRecord.ID(recordName: user)
            }
        }
        if let modified = json["modified"] {
            if let ms = modified["timestamp"]?.int64Value { modificationDate = Date(milliseconds: ms) }
            if let user = modified["userRecordName"]?.stringValue, !user.isEmpty {
                lastModifiedUserRecordID = CKRecord.ID(recordName: user)
            }
        }
        if let parentName = json["parent"]?["recordName"]?.stringValue {
            parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: parentName, zoneID: zone), action: .none)
        }
        if let shareName = json["share"]?["recordName"]?.stringValue {
            share = CKRecord.Reference(recordID: CKRecord.ID(recordName: shareName, zoneID: zone), action: .none)
        }
        if let fieldsJSON = json["fields"]?.objectValue {
            for (key, fieldJSON) in fieldsJSON {
                guard let decoded = try? FieldValue.decode(fieldJSON: fieldJSON, path: key, expected: nil) else { continue }
                switch decoded {
                case .value(let value): fields[key] = RecordFieldValue(wire: value, holderZone: zone)
                case .clear: fields[key] = nil
                }
            }
        }
        (self as? CKShare)?.applyShareState(json)
        clearChanges()
    }
}

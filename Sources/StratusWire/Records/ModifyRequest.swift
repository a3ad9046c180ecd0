import Foundation
import StratusEngine
import StratusModel

/// A records/modify body: the modification, and how to render its records. Decoding checks
/// every operation's shape before anything is written, so a malformed batch changes nothing.
public struct ModifyRequest: Sendable {
    public var modification: RecordModification
    /// Per operation (same order): overrides `desiredKeys` for that record.
    public var desiredKeysByOperation: [[String]?]
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool

    public init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        do {
            let body = try JSONObjectReader(json)
            // The engine checks the count, the record names and the zone of every modification.
            let rawOperations = try body.array("operations")
            let requestZone = try body["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
            let atomic = try body.bool("atomic", default: true)
            desiredKeys = try body.optionalStringArray("desiredKeys")
            numbersAsStrings = try body.bool("numbersAsStrings", default: false)
            var operations: [RecordOperation] = []
            operations.reserveCapacity(rawOperations.count)
            desiredKeysByOperation = []
            for (position, raw) in rawOperations.enumerated() {
                let path = "operations[\(position)]"
                operations.append(try RecordOperation(json: raw, path: path))
                desiredKeysByOperation.append(try JSONObjectReader(raw, path: path).optionalStringArray("desiredKeys"))
            }
            let zoneID = try ModifyRequest.zone(requestZone, operations: operations)
            modification = RecordModification(operations: operations, zoneID: zoneID, atomic: atomic)
        } catch {
            throw .parsing(error)
        }
    }

    /// The one zone a request writes to. Records may carry their own `zoneID`: with a request
    /// `zoneID` they must name the same zone; without one, they name the zone (CloudKit files a
    /// record in its own zone), and must agree. A record is never written to a zone it did not name.
    static func zone(_ requestZone: ZoneID?, operations: [RecordOperation]) throws(CloudKitError) -> ZoneID {
        if let requestZone {
            if let stray = operations.first(where: { $0.zoneID.map { $0.zoneName != requestZone.zoneName } ?? false }) {
                throw .badRequest(
                    "\(stray.path).record.zoneID names zone '\(stray.zoneID!.zoneName)' but the request's zoneID names '\(requestZone.zoneName)'; a records/modify request writes to one zone: send this record in a request for its own zone"
                )
            }
            return requestZone
        }
        let named = operations.compactMap(\.zoneID)
        if let first = named.first, let other = named.first(where: { $0.zoneName != first.zoneName }) {
            throw .badRequest("the operations' records name zones '\(first.zoneName)' and '\(other.zoneName)'; a records/modify request writes to one zone: send one request per zone")
        }
        return named.first ?? .default
    }
}

extension RecordOperation {
    /// One element of `operations`: `{operationType, record: {recordName, recordType, recordChangeTag, fields, zoneID, parent, …}}`.
    init(json: JSONValue, path: String) throws {
        let reader = try JSONObjectReader(json, path: path)
        let typeName = try reader.string("operationType")
        guard let type = RecordOperationType(rawValue: typeName) else {
            throw WireError(
                path: reader.child("operationType"),
                problem: "'\(typeName)' is not an operation type; use one of \(RecordOperationType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let record = try reader.object("record")
        let recordName: String
        if let name = try record.optionalString("recordName") {
            try NameRules.checkRecordName(name, path: record.child("recordName"))
            recordName = name
        } else if type == .create {
            recordName = UUID.random().uuidString
        } else {
            throw WireError(path: record.child("recordName"), problem: "is required for \(typeName)")
        }
        var recordType = try record.optionalString("recordType")
        var share: ShareRequest?
        if ShareRequest.isShare(recordType: recordType, recordName: recordName) {
            // CloudKit's own type name, which is no identifier (`cloudKit.share` is accepted too).
            if recordType != nil { recordType = ShareRequest.recordType }
            share = try ShareRequest(record: record)
        } else if let recordType {
            try NameRules.checkIdentifier(recordType, what: "record type", path: record.child("recordType"))
        } else if type == .create {
            throw WireError(path: record.child("recordType"), problem: "is required to create a record")
        }
        let changeTag = try record.optionalString("recordChangeTag")
        if [.update, .replace, .delete].contains(type), changeTag == nil {
            throw WireError(
                path: record.child("recordChangeTag"),
                problem: "is required for \(typeName); send the tag you last fetched, or use force\(typeName.prefix(1).uppercased() + typeName.dropFirst()) to skip the check")
        }
        var fields: [String: FieldInput] = [:]
        if let raw = record["fields"] {
            guard let members = raw.objectValue else {
                throw WireError(path: record.child("fields"), problem: "expected an object, got \(raw.kindName)")
            }
            let fieldsPath = "\(path).record.fields"
            fields.reserveCapacity(members.count)
            for (name, fieldJSON) in members {
                let fieldPath = "\(fieldsPath).\(name)"
                fields[name] = FieldInput(path: fieldPath) { expected throws(WireError) in
                    try FieldValue.decode(fieldJSON: fieldJSON, path: fieldPath, expected: expected)
                }
            }
        }
        let zoneID = try record["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: record.child("zoneID")) }
        self.init(
            type, recordName: recordName, recordType: recordType, changeTag: changeTag, fields: fields, zoneID: zoneID,
            parent: try ParentEdit(record: record), path: path)
        self.share = share
    }
}

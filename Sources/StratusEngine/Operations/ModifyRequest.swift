import Foundation
import StratusModel

/// `operationType` of records/modify (docs/protocol.md §4.3).
public enum RecordOperationType: String, Sendable, CaseIterable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    var needsChangeTag: Bool { self == .update || self == .replace || self == .delete }
    var isDelete: Bool { self == .delete || self == .forceDelete }
    /// Unspecified fields are cleared (replace) instead of kept (update).
    var replacesFields: Bool { self == .replace || self == .forceReplace || self == .create }
    var createsWhenMissing: Bool { self == .create || self == .forceUpdate || self == .forceReplace }
}

/// One parsed operation of a records/modify request.
struct RecordOperation: Sendable {
    var type: RecordOperationType
    var recordName: String
    var recordType: String?
    var changeTag: String?
    var fields: [String: JSONValue]
    var desiredKeys: [String]?
    /// The record's own `zoneID`, when it carries one.
    var zoneID: ZoneID?
    var path: String
    /// The record's `parent` key.
    var parent: ParentEdit = .keep
    /// The share members, when the record is a share (`cloudkit.share`).
    var share: ShareRequest?
}

/// A parsed records/modify request. Parsing checks every operation's shape before anything is
/// written, so a malformed batch changes nothing.
struct ModifyRequest: Sendable {
    var operations: [RecordOperation]
    var zoneID: ZoneID
    var atomic: Bool
    var desiredKeys: [String]?
    var numbersAsStrings: Bool

    init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        do {
            let body = try JSONObjectReader(json)
            let rawOperations = try body.array("operations")
            if rawOperations.isEmpty { throw CloudKitError.badRequest("operations is empty; send at least one operation") }
            if rawOperations.count > limits.maximumOperationsPerRequest {
                throw CloudKitError.badRequest("operations has \(rawOperations.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request — split the batch")
            }
            let requestZone = try body["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
            atomic = try body.bool("atomic", default: true)
            desiredKeys = try body.optionalStringArray("desiredKeys")
            numbersAsStrings = try body.bool("numbersAsStrings", default: false)
            var seen = Set<String>()
            operations = []
            for (position, raw) in rawOperations.enumerated() {
                let operation = try RecordOperation(json: raw, path: "operations[\(position)]")
                if !seen.insert(operation.recordName).inserted {
                    throw CloudKitError.badRequest("\(operation.path): record '\(operation.recordName)' appears in more than one operation; send one operation per record per request")
                }
                operations.append(operation)
            }
            zoneID = try ModifyRequest.zone(requestZone, operations: operations)
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
                throw .badRequest("\(stray.path).record.zoneID names zone '\(stray.zoneID!.zoneName)' but the request's zoneID names '\(requestZone.zoneName)'; a records/modify request writes to one zone: send this record in a request for its own zone")
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
    init(json: JSONValue, path: String) throws {
        let reader = try JSONObjectReader(json, path: path)
        let typeName = try reader.string("operationType")
        guard let type = RecordOperationType(rawValue: typeName) else {
            throw WireError(path: reader.child("operationType"),
                            problem: "'\(typeName)' is not an operation type; use one of \(RecordOperationType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let record = try reader.object("record")
        self.type = type
        self.path = path
        if let name = try record.optionalString("recordName") {
            try NameRules.checkRecordName(name, path: record.child("recordName"))
            self.recordName = name
        } else if type == .create {
            self.recordName = UUID.random().uuidString
        } else {
            throw WireError(path: record.child("recordName"), problem: "is required for \(typeName)")
        }
        self.recordType = try record.optionalString("recordType")
        if ShareRequest.isShare(recordType: recordType, recordName: recordName) {
            // CloudKit's own type name, which is no identifier (`cloudKit.share` is accepted too).
            if recordType != nil { self.recordType = ShareRequest.recordType }
            self.share = try ShareRequest(record: record)
        } else if let recordType {
            try NameRules.checkIdentifier(recordType, what: "record type", path: record.child("recordType"))
        } else if type == .create {
            throw WireError(path: record.child("recordType"), problem: "is required to create a record")
        }
        self.changeTag = try record.optionalString("recordChangeTag")
        if type.needsChangeTag, changeTag == nil {
            throw WireError(path: record.child("recordChangeTag"),
                            problem: "is required for \(typeName); send the tag you last fetched, or use force\(typeName.prefix(1).uppercased() + typeName.dropFirst()) to skip the check")
        }
        if let fields = record["fields"] {
            guard let members = fields.objectValue else {
                throw WireError(path: record.child("fields"), problem: "expected an object, got \(fields.kindName)")
            }
            self.fields = members
        } else {
            self.fields = [:]
        }
        self.desiredKeys = try reader.optionalStringArray("desiredKeys")
        self.zoneID = try record["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: record.child("zoneID")) }
        self.parent = try ParentEdit(record: record)
    }
}

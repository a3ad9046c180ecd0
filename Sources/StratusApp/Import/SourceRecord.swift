import StratusEngine
import StratusModel

/// A record dictionary as the source answered it, decoded: the typed record the target stores,
/// and the asset download URLs its fields hold (the bytes are fetched before it is written).
struct SourceRecord {
    var record: ImportedRecord
    /// Per field, the download URL of each asset the field holds, in order.
    var downloads: [String: [String?]]

    /// Reads one record of a records/query (or changes/zone) answer; an error names the record
    /// and what is wrong with it, so a malformed source stops the import with the culprit named.
    init(json: JSONValue) throws {
        let name = json["recordName"]?.stringValue
        func failure(_ problem: String) -> ImportError {
            ImportError("the source sent record '\(name ?? "?")' \(problem); the import stopped before writing it")
        }
        if let code = json["serverErrorCode"]?.stringValue {
            throw failure("with error \(code): \(json["reason"]?.stringValue ?? "")")
        }
        guard let name else { throw failure("without a recordName") }
        guard let type = json["recordType"]?.stringValue else { throw failure("without a recordType") }
        var fields: [String: FieldValue] = [:]
        var downloads: [String: [String?]] = [:]
        if let members = json["fields"]?.objectValue {
            for (field, value) in members {
                do {
                    guard case .value(let typed) = try FieldValue.decode(fieldJSON: value, path: "fields.\(field)", expected: nil) else { continue }
                    fields[field] = typed
                    if !typed.assets.isEmpty { downloads[field] = typed.assets.map(\.downloadURL) }
                } catch {
                    throw failure("with a field that cannot be read: \(error)")
                }
            }
        }
        guard let created = Self.stamp(json["created"]), let modified = Self.stamp(json["modified"]) else {
            throw failure("without created and modified stamps (timestamp and userRecordName)")
        }
        let parent = json["parent"]?["recordName"]?.stringValue
        record = ImportedRecord(recordName: name, recordType: type, fields: fields, parent: parent, created: created, modified: modified)
        self.downloads = downloads
    }

    static func stamp(_ json: JSONValue?) -> RecordStamp? {
        guard let json, let timestamp = json["timestamp"]?.int64Value, let user = json["userRecordName"]?.stringValue else { return nil }
        return RecordStamp(timestamp: timestamp, userRecordName: user, deviceID: json["deviceID"]?.stringValue ?? "stratus")
    }
}

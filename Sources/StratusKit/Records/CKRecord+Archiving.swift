import Foundation
import StratusModel

// A record archives itself with keyed coding so apps can keep a record's system fields locally
// (`encodeSystemFields(with:)`) and rebuild a record from them (`CKRecord(coder:)`) whose later
// save passes the server's change-tag check. Values are archived as their CKWS field JSON.

extension CKRecord {
    public class var supportsSecureCoding: Bool { true }

    /// Archives the system fields only (ID, type, change tag, dates, creator, modifier, parent,
    /// share) — the idiom for caching what a later save needs.
    public func encodeSystemFields(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: ArchiveKey.recordType)
        coder.encode(recordID, forKey: ArchiveKey.recordID)
        if let recordChangeTag { coder.encode(recordChangeTag as NSString, forKey: ArchiveKey.changeTag) }
        if let creationDate { coder.encode(creationDate.timeIntervalSince1970, forKey: ArchiveKey.created) }
        if let modificationDate { coder.encode(modificationDate.timeIntervalSince1970, forKey: ArchiveKey.modified) }
        if let creatorUserRecordID { coder.encode(creatorUserRecordID, forKey: ArchiveKey.creator) }
        if let lastModifiedUserRecordID { coder.encode(lastModifiedUserRecordID, forKey: ArchiveKey.modifier) }
        if let parent { coder.encode(parent, forKey: ArchiveKey.parent) }
        if let share { coder.encode(share, forKey: ArchiveKey.share) }
        (self as? CKShare)?.encodeShareState(with: coder)
    }

    /// Archives the whole record: system fields and values.
    public func encode(with coder: NSCoder) {
        encodeSystemFields(with: coder)
        let values = JSONValue.object(fields.mapValues { $0.archiveJSON })
        coder.encode(values.serializedData as NSData, forKey: ArchiveKey.values)
        if !encryptedKeys.isEmpty {
            let keys = JSONValue.array(encryptedKeys.sorted().map { .string($0) })
            coder.encode(keys.serializedData as NSData, forKey: ArchiveKey.encryptedKeys)
        }
    }

    enum ArchiveKey {
        static let recordType = "recordType"
        static let recordID = "recordID"
        static let changeTag = "recordChangeTag"
        static let created = "creationDate"
        static let modified = "modificationDate"
        static let creator = "creatorUserRecordID"
        static let modifier = "lastModifiedUserRecordID"
        static let parent = "parent"
        static let encryptedKeys = "encryptedKeys"
        static let share = "share"
        static let values = "values"
    }
}

extension CKRecord {
    /// Reads the archive's identity: what `init?(coder:)` needs before it can create the record.
    static func decodeIdentity(from coder: NSCoder) -> (RecordType, CKRecord.ID)? {
        guard let type = coder.decodeIfPresent(NSString.self, forKey: ArchiveKey.recordType),
            let recordID = coder.decodeIfPresent(CKRecord.ID.self, forKey: ArchiveKey.recordID)
        else { return nil }
        return (type as String, recordID)
    }

    /// Reads everything else an archive holds into this record.
    func decodeArchive(from coder: NSCoder) {
        recordChangeTag = coder.decodeIfPresent(NSString.self, forKey: ArchiveKey.changeTag) as String?
        if coder.containsValue(forKey: ArchiveKey.created) {
            creationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: ArchiveKey.created))
        }
        if coder.containsValue(forKey: ArchiveKey.modified) {
            modificationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: ArchiveKey.modified))
        }
        creatorUserRecordID = coder.decodeIfPresent(CKRecord.ID.self, forKey: ArchiveKey.creator)
        lastModifiedUserRecordID = coder.decodeIfPresent(CKRecord.ID.self, forKey: ArchiveKey.modifier)
        parent = coder.decodeIfPresent(CKRecord.Reference.self, forKey: ArchiveKey.parent)
        share = coder.decodeIfPresent(CKRecord.Reference.self, forKey: ArchiveKey.share)
        if let data = coder.decodeIfPresent(NSData.self, forKey: ArchiveKey.values),
            let json = try? JSONValue.parse(data as Data), let members = json.objectValue
        {
            for (key, value) in members {
                if let field = RecordFieldValue(archiveJSON: value, zoneID: recordID.zoneID) { fields[key] = field }
            }
        }
        if let data = coder.decodeIfPresent(NSData.self, forKey: ArchiveKey.encryptedKeys),
            let keys = try? JSONValue.parse(data as Data).arrayValue
        {
            encryptedKeys = Set(keys.compactMap(\.stringValue))
        }
        clearChanges()
    }
}

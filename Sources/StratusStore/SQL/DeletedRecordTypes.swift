/// Migration 15: a deletion's record type in the change log, so a zone's change feed can say what
/// kind of record each tombstone was (apps dispatch deletions by type, as CloudKit's framework
/// reports it). Saves leave it NULL: their type is on the record. Deletions logged before this
/// migration have none, and their feed entries carry no `recordType`.
public enum DeletedRecordTypes {
    public static let version = 15
    public static let statements: [String] = [
        "ALTER TABLE changes ADD COLUMN record_type TEXT"
    ]
}

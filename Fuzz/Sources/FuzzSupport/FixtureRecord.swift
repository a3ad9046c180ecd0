import Foundation
import StratusEngine
import StratusModel

extension Fixtures {
    /// A `Note` with every field of the fixture schema set, for predicates to be evaluated on.
    public static let note = RecordRow(
        zoneName: "_defaultZone", recordName: "note-1", recordType: "Note", changeTag: "1",
        fields: [
            "title": .string("Field notes"), "body": .string("the quick brown fox"), "rating": .int64(4),
            "score": .double(2.5), "due": .timestamp(1_700_000_000_000),
            "place": .location(LocationValue(latitude: 48.85, longitude: 2.35)),
            "owner": .reference(ReferenceValue(recordName: "user-1")), "blob": .bytes(Data([1, 2, 3])),
            "tags": .list(.string, [.string("a"), .string("b")]), "counts": .list(.int64, [.int64(1), .int64(-2)]),
        ],
        created: RecordStamp(timestamp: 1_600_000_000_000, userRecordName: "_fuzzer"),
        modified: RecordStamp(timestamp: 1_650_000_000_000, userRecordName: "_fuzzer"))
}

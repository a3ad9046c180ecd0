// Notes: a private-database notes manager with folders, a blindly created default folder made
// idempotent by adopting the server's record on serverRecordChanged, and a generic query helper.
// Needs a signed-in user: STRATUS_WEB_AUTH_TOKEN (see the README).
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

struct Folder { let record: CKRecord; var name: String { record["name"] as? String ?? "" } }
struct Note { let record: CKRecord; var text: String { record["text"] as? String ?? "" } }

final class NotesManager: Sendable {
    let database = CKContainer.default().privateCloudDatabase
    static let defaultFolderID = CKRecord.ID(recordName: "defaultFolder")

    /// Creates the default folder without checking whether it exists: a conflict means it does,
    /// and the server's copy is the folder.
    func createDefaultFolder() async throws -> Folder {
        let record = CKRecord(recordType: "Folder", recordID: Self.defaultFolderID)
        record["name"] = "Notes"
        do {
            return Folder(record: try await database.save(record))
        } catch let error as CKError where error.code == .serverRecordChanged {
            guard let existing = error.serverRecord else { throw error }
            return Folder(record: existing)
        }
    }

    func addNote(_ text: String, to folder: Folder) async throws -> Note {
        let record = CKRecord(recordType: "Note")
        record["text"] = text
        record["folder"] = CKRecord.Reference(record: folder.record, action: .deleteSelf)
        return Note(record: try await database.save(record))
    }

    /// A reusable query helper: every record of a type matching a predicate, mapped.
    func query<T>(
        _ recordType: CKRecord.RecordType, _ predicate: NSPredicate = NSPredicate(value: true),
        sortedBy key: String = "creationDate", ascending: Bool = true,
        _ transform: (CKRecord) -> T
    ) async throws -> [T] {
        let query = CKQuery(recordType: recordType, predicate: predicate)
        query.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)]
        var (results, cursor) = try await database.records(matching: query)
        var items = results.compactMap { try? $0.1.get() }.map(transform)
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next)
            items += results.compactMap { try? $0.1.get() }.map(transform)
        }
        return items
    }

    func notes(in folder: Folder) async throws -> [Note] {
        let reference = CKRecord.Reference(recordID: folder.record.recordID, action: .none)
        return try await query("Note", NSPredicate(format: "folder == %@", reference), Note.init)
    }
}

let manager = NotesManager()
let first = try await manager.createDefaultFolder()
let again = try await manager.createDefaultFolder()
check(first.record.recordID == again.record.recordID, "the default folder is the same record both times")
check(again.record.recordChangeTag != nil, "the adopted folder carries the server's change tag")
print("default folder '\(again.name)' ready (created once, adopted once; change tag \(again.record.recordChangeTag ?? "?"))")

let marker = UUID().uuidString.prefix(6)
for text in ["Buy milk \(marker)", "Call Ana \(marker)", "Book flights \(marker)"] {
    _ = try await manager.addNote(text, to: again)
}
let notes = try await manager.notes(in: again)
let mine = notes.filter { $0.text.hasSuffix(String(marker)) }
check(mine.count == 3, "three new notes in the folder")
print("folder '\(again.name)' holds \(notes.count) note(s); new: " + mine.map(\.text).joined(separator: " | "))

let folders = try await manager.query("Folder") { Folder(record: $0).name }
print("folders: \(folders)")
for note in mine { try await manager.database.deleteRecord(withID: note.record.recordID) }
print("notes: OK")

import StratusModel

/// System state a record keeps among its stored fields, under names no client field can have
/// (field names start with a letter): every read carries it without another table, and the
/// renderer lifts it out of `fields` into the record dictionary's own keys.
enum ReservedField {
    /// The record's `parent` (REFERENCE): what makes it part of a shared hierarchy.
    static let parent = "___parent"
    /// On a shared root: its share record (REFERENCE), sent as `share`.
    static let share = "___share"
    /// On a share record: its rendered state (STRING holding JSON), see `ShareState`.
    static let shareState = "___shareState"

    static let prefix = "___"
    static let all = [parent, share, shareState]

    static func isReserved(_ name: String) -> Bool { name.hasPrefix(prefix) }

    /// The reserved fields of `existing`, which a save keeps unless it sets them itself
    /// (a `replace` clears the client's fields, not the server's).
    static func carried(from existing: [String: FieldValue]?) -> [String: FieldValue] {
        guard let existing else { return [:] }
        return existing.filter { isReserved($0.key) }
    }
}

extension RecordRow {
    /// The name of the record's parent, in its zone.
    var parentName: String? { parent?.recordName }

    /// Whether the stored text may hold reserved fields (a cheap test before decoding).
    var mayHoldReservedFields: Bool {
        if let stored = storedFields { return stored.mayHoldReservedFields }
        return fields.keys.contains(where: ReservedField.isReserved)
    }
}

/// The `parent` key of a record in a records/modify operation.
public enum ParentEdit: Sendable, Hashable {
    /// Absent: the record keeps its parent.
    case keep
    /// `null`: the record has no parent any more.
    case clear
    case set(String)

    package init(record: JSONObjectReader) throws(WireError) {
        guard let value = record["parent"] else { self = .keep; return }
        if value.isNull { self = .clear; return }
        // A parent is always in the record's own zone: only its name counts.
        self = .set(try ReferenceValue(json: value, path: record.child("parent")).recordName)
    }

    /// `fields` with the parent this edit leaves the record with.
    func applied(to fields: inout [String: FieldValue], recordName: String, path: String) throws(CloudKitError) {
        switch self {
        case .keep: return
        case .clear: fields[ReservedField.parent] = nil
        case .set(let name):
            if name == recordName { throw .badRequest("\(path).record.parent: a record cannot be its own parent") }
            fields[ReservedField.parent] = .reference(ReferenceValue(recordName: name))
        }
    }
}

import Foundation
import Synchronization

/// A client's encryption bookkeeping: the signed-in user's record name (their key is stored
/// under it) and which fields of each record type hold encrypted values, learned from saves and
/// fetches (and kept in `file` across processes), so queries naming them are refused before they
/// are sent.
final class EncryptionState: Sendable {
    private struct State {
        var callerRecordName: String?
        var encryptedFields: [CKRecord.RecordType: Set<CKRecord.FieldKey>] = [:]
    }
    private let state: Mutex<State>
    private let file: EncryptedFieldsFile?

    init(file: EncryptedFieldsFile? = nil) {
        self.file = file
        state = Mutex(State(encryptedFields: file?.load() ?? [:]))
    }

    var callerRecordName: String? { state.withLock { $0.callerRecordName } }
    func remember(callerRecordName: String) { state.withLock { $0.callerRecordName = callerRecordName } }
    /// After a sign-in or sign-out the key belongs to someone else.
    func forgetCaller() { state.withLock { $0.callerRecordName = nil } }

    func note(encryptedFields keys: Set<CKRecord.FieldKey>, of recordType: CKRecord.RecordType) {
        guard !keys.isEmpty else { return }
        let learnt = state.withLock { state in
            let known = state.encryptedFields[recordType, default: []]
            state.encryptedFields[recordType] = known.union(keys)
            return !keys.isSubset(of: known)
        }
        if learnt { file?.add([recordType: keys]) }
    }

    func encryptedFields(of recordType: CKRecord.RecordType) -> Set<CKRecord.FieldKey> {
        state.withLock { $0.encryptedFields[recordType] ?? [] }
    }
}

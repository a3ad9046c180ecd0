import Foundation

extension CKRecordZone {
    /// How a zone's encrypted values are keyed. StratusKit encrypts every value with the user's
    /// key whichever is chosen (the choice is kept for code that sets it); see
    /// docs/stratuskit-api.md.
    public enum EncryptionScope: Int, Sendable {
        case perRecord = 0
        case perZone = 1
    }
}

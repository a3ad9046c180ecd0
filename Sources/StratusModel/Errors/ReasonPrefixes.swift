/// Reasons whose meaning has no CKWS error code of its own, marked by how they start so the SDK
/// can map them to the CKError a CloudKit app expects. The server and StratusKit share these.
public enum ReasonPrefix {
    /// BAD_REQUEST for a sync token older than the change log's compaction horizon; the SDK
    /// reports `CKError.changeTokenExpired`.
    public static let syncTokenExpired = "syncToken has expired"
    /// BAD_REQUEST for a share over records or a zone already in a share; `CKError.alreadyShared`.
    public static let alreadyShared = "ALREADY_SHARED:"
    /// BAD_REQUEST for a share past its participant limit; `CKError.tooManyParticipants`.
    public static let tooManyParticipants = "TOO_MANY_PARTICIPANTS:"
}

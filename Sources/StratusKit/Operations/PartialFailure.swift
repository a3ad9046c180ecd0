import Foundation

/// Builds the `partialFailure` error a batch operation ends with when some of its items failed, as
/// Apple's framework does: `partialErrorsByItemID` names each failed item (record ID, zone ID,
/// subscription ID, share URL, ...) with its error, which the per-item blocks got too.
func partialFailure(_ errors: [AnyHashable: any Error]) -> CKError? {
    guard !errors.isEmpty else { return nil }
    return CKError(
        .partialFailure, "\(errors.count) item(s) failed; partialErrorsByItemID names each with its error",
        extra: [CKPartialErrorsByItemIDKey: errors])
}

/// The final `Result` of a batch operation: success when every item succeeded, otherwise the
/// `partialFailure` naming each failed item (Apple's result blocks report it too, not only the
/// deprecated completion blocks).
func batchResult(_ errors: [AnyHashable: any Error]) -> Result<Void, any Error> {
    partialFailure(errors).map { .failure($0) } ?? .success(())
}

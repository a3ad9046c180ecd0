import Foundation

/// Builds the `partialFailure` error the old-style completion blocks report when some items
/// failed (the new `Result` blocks never get it: item errors go to per-item blocks).
func partialFailure(_ errors: [AnyHashable: any Error]) -> CKError? {
    guard !errors.isEmpty else { return nil }
    return CKError(.partialFailure, "\(errors.count) item(s) failed", extra: [CKPartialErrorsByItemIDKey: errors])
}

import Foundation
import StratusEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A write to the data folder that found no room: a retryable error that names the cause, for
/// clients, instead of an internal error.
enum DiskFull {
    /// ENOSPC (no space or no inodes left) or EDQUOT (the user's quota is spent).
    static func isCause(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    static let uploadError = CloudKitError(
        .tryAgainLater, "the server's disk is full, so the upload was not kept; retry once the server's operator has freed space",
        retryAfter: 30)
}

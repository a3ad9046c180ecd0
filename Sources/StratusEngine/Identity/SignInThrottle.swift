import Foundation

/// Slows password guessing: after `freeFailures` consecutive failures for one address (container
/// and email), each further attempt must wait, doubling from 30 s up to 15 minutes. A success
/// clears the address. The failures are stored (`FleetStorageWriter`), so every instance counts
/// the same ones and a restart forgets nothing.
enum SignInThrottle {
    static let freeFailures = 5
    static let maximumWait: TimeInterval = 15 * 60

    /// Seconds to wait before another attempt after `count` failures, the last at
    /// `lastMilliseconds`; nil when an attempt may be made now.
    static func wait(failures count: Int, lastMilliseconds: Int64, nowMilliseconds: Int64) -> Int? {
        guard count >= freeFailures else { return nil }
        let delay = min(maximumWait, 30 * pow(2, Double(count - freeFailures)))
        let remaining = Double(lastMilliseconds - nowMilliseconds) / 1000 + delay
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }
}

import Foundation
import Synchronization

/// Slows password guessing: after `freeFailures` consecutive failures for one key (container and
/// email address), each further attempt must wait, doubling from 30 s up to 15 minutes. A success
/// clears the key. In memory: a restart forgets, which costs an attacker a restart per lockout.
final class SignInThrottle: Sendable {
    let freeFailures = 5
    let maximumWait: TimeInterval = 15 * 60
    private let failures = Mutex<[String: (count: Int, last: Date)]>([:])

    /// Seconds to wait before `key` may try again, or nil.
    func wait(for key: String, now: Date = Date()) -> Int? {
        failures.withLock { failures in
            guard let entry = failures[key], entry.count >= freeFailures else { return nil }
            let delay = min(maximumWait, 30 * pow(2, Double(entry.count - freeFailures)))
            let remaining = entry.last.addingTimeInterval(delay).timeIntervalSince(now)
            return remaining > 0 ? Int(remaining.rounded(.up)) : nil
        }
    }

    func failed(_ key: String, now: Date = Date()) {
        failures.withLock { failures in
            if failures.count > 100_000 { failures.removeAll() }
            failures[key] = ((failures[key]?.count ?? 0) + 1, now)
        }
    }

    func succeeded(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }
}

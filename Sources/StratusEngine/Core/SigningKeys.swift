import Foundation

/// The secrets behind every `SignedEnvelope` (continuation markers, sync tokens, asset URLs and
/// receipts). The current secret signs; secrets retired by a rotation still verify until their
/// time runs out, so whatever was handed out before the rotation keeps working through it.
public struct SigningKeys: Sendable, Equatable {
    /// A secret that no longer signs but still verifies until `verifiesUntil` (milliseconds
    /// since 1970; `Int64.max` for one the operator retires by hand).
    public struct Retired: Sendable, Equatable {
        public let secret: [UInt8]
        public let verifiesUntil: Int64

        public init(secret: [UInt8], verifiesUntil: Int64) {
            self.secret = secret
            self.verifiesUntil = verifiesUntil
        }
    }

    /// Raw bytes: swift-crypto's `SymmetricKey` is not `Sendable`.
    public let current: [UInt8]
    public let previous: [Retired]

    public init(current: [UInt8], previous: [Retired] = []) {
        self.current = current
        self.previous = previous
    }

    /// The secrets that verify at `now`, the current one first (the common case costs one HMAC).
    func verifying(at now: Int64) -> [[UInt8]] {
        [current] + previous.filter { $0.verifiesUntil > now }.map(\.secret)
    }

    /// After a rotation to `secret`: the old current secret verifies for `overlap` more
    /// milliseconds, and retired secrets whose time has run out are dropped. An overlap of 0
    /// (a secret that leaked) drops every retired secret: only the new one verifies.
    public func rotated(to secret: [UInt8], now: Int64, overlap: Int64) -> SigningKeys {
        guard overlap > 0 else { return SigningKeys(current: secret) }
        let kept = previous.filter { $0.verifiesUntil > now && $0.secret != secret }
        return SigningKeys(current: secret, previous: [Retired(secret: current, verifiesUntil: now + overlap)] + kept)
    }

    /// 32 random bytes: a new secret.
    public static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The retired secrets as stored text: one `HEX UNTIL` line each (the data folder's
    /// `secret.previous` file, PostgreSQL's `secret.previous` setting).
    public var previousText: String {
        previous.map { "\(hexString($0.secret)) \($0.verifiesUntil)\n" }.joined()
    }

    /// Parses `previousText`; nil when a line is damaged.
    public static func parsePrevious(_ text: String) -> [Retired]? {
        var retired: [Retired] = []
        for line in text.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let secret = bytes(hex: String(parts[0])), !secret.isEmpty, let until = Int64(parts[1]) else { return nil }
            retired.append(Retired(secret: secret, verifiesUntil: until))
        }
        return retired
    }

    /// Bytes from hex digits (either case); nil for an odd length or a non-hex character.
    public static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// Where an instance reads its signing keys: the data folder, the database, or the environment.
/// Read at start, again when another instance announces a rotation, and every few seconds.
public protocol SigningKeySource: Sendable {
    func loadSigningKeys() async throws -> SigningKeys
}

import Synchronization

/// Request UUIDs (`X-Apple-Request-UUID`, the `uuid` of error dictionaries) without a system call
/// per request: drawing each one from the system generator cost two `getrandom` calls on every
/// request. They only need to be unique and not reveal anything: a random 64-bit half fixed per
/// process, and a counter put through a keyed bijection (distinct counters give distinct mixes, of
/// which the UUID variant bits leave 62). The mix runs twice with a secret key before and between
/// the rounds: one public round alone can be inverted, and two inverted values would show how far
/// apart their counters are, that is, roughly how many requests came between them.
enum RequestUUIDs {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let keys = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    private static let counter = Atomic<UInt64>(0)

    /// A lowercase version-4-shaped UUID string.
    static func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        let high = (prefix & ~0xF000) | 0x4000 // version 4
        let low = (mix(mix(count ^ keys.0) ^ keys.1) & ~(0xC0 << 56)) | (0x80 << 56) // RFC 4122 variant
        let digits: StaticString = "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            let half = index < 8 ? high : low
            let byte = UInt8(truncatingIfNeeded: half >> (56 - 8 * UInt64(index % 8)))
            text.append(digits.utf8Start[Int(byte >> 4)])
            text.append(digits.utf8Start[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SplitMix64's finalizer: a bijection on 64-bit values that spreads every input bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

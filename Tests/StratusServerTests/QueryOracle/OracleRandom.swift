import Foundation

/// SplitMix64: a seeded generator, so a failing run is repeated exactly with its seed.
struct OracleRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}

/// The oracle's settings, from the environment: `STRATUS_ORACLE_SEED` repeats a run,
/// `STRATUS_ORACLE_QUERIES` changes how many queries it makes, `STRATUS_ORACLE_CASE` runs one query.
struct OracleSettings {
    static let defaultSeed: UInt64 = 0x5EED_0A4C
    static let defaultQueries = 300

    var seed: UInt64
    var queries: Int
    var onlyCase: Int?

    static var current: OracleSettings {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["STRATUS_ORACLE_SEED"].flatMap { UInt64($0) ?? UInt64($0.dropFirst(2), radix: 16) } ?? defaultSeed
        let queries = environment["STRATUS_ORACLE_QUERIES"].flatMap(Int.init) ?? defaultQueries
        let onlyCase = environment["STRATUS_ORACLE_CASE"].flatMap(Int.init)
        return OracleSettings(seed: seed, queries: queries, onlyCase: onlyCase)
    }
}

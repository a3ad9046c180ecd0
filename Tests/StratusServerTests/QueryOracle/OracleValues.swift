import Foundation
import StratusModel

/// Values the generator draws from: edge cases chosen on purpose, mixed with random ones. Filters
/// draw from the same pools, so they match some records and miss others.
enum OracleValues {
    static let strings: [String] = [
        "", "a", "A", "aa", "ab", "abc", "abd", "b", "B", "z", "Z", "a ", " a", "a b",
        // LIKE wildcards and the escape character must be plain characters to BEGINS_WITH.
        "%", "%a", "a%", "a%b", "_", "a_", "a_b", "\\", "a\\", "a\\b", "\\%", "*", "?", "[a]", "'", "\"", "a'b",
        // Precomposed and combining forms are different strings (byte order, no normalization).
        "é", "e\u{301}", "e", "ex", "éa", "e\u{301}a",
        "😀", "😀a", "a😀", "👍🏽", "日本", "日本語", "\u{7F}", "\u{1}", "\t", "\u{FFFD}", "\u{FFFF}",
        // The greatest code point: a prefix range must not end at it.
        "\u{10FFFF}", "a\u{10FFFF}", "a\u{10FFFF}b", "\u{10FFFF}\u{10FFFF}",
        String(repeating: "long", count: 80),
        // Words for token search: case, diacritics, ligatures and scripts that fold differently.
        "Straße", "STRASSE", "strasse", "Café au lait", "cafe", "naïve NAIVE", "İstanbul", "istanbul", "ﬁle", "file",
        "Ωmega ωmega", "x_y", "a1 b2", "１２", "hello, world", "HELLO-world", "don't", "über Über uber",
    ]

    /// Texts of token searches.
    static let tokenQueries: [String] = [
        "a", "ab", "abc", "e", "é", "E\u{301}", "straße", "strasse", "STRASSE", "cafe", "CAFÉ", "lait", "au", "naive",
        "istanbul", "İstanbul", "file", "ﬁle", "ωmega", "x y", "x_y", "a1", "12", "１２", "hello world", "world", "don t", "uber",
        "日本", "日本語", "long", "zzz",
    ]

    static let prefixes: [String] = [
        "", "a", "A", "ab", "abc", "abcd", "%", "a%", "_", "a_", "\\", "a\\", "e", "é", "e\u{301}", "😀", "日本", "z", "'", "*",
        "\u{10FFFF}", "a\u{10FFFF}",
    ]

    static let integers: [Int64] = [
        0, 1, -1, 2, 42, -42, 1 << 31, -(1 << 31) - 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, 1_000_000_007,
        .max, .min, .max - 1, .min + 1,
    ]

    static let doubles: [Double] = [
        0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.30000000000000004, 1.0 / 3.0, 123_456.789, 9_007_199_254_740_992.0,
        9.223372036854775807e18, -9.223372036854775807e18, 1e308, -1e308, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNormalMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e-300,
    ]

    static let timestamps: [Int64] = [
        0, -1, 1, 86_400_000, 1_700_000_000_000, 1_700_000_000_001, -62_135_596_800_000, 253_402_300_799_999,
        4_102_444_800_000, -2_208_988_800_000,
    ]

    static let referenceNames: [String] = ["alpha", "Alpha", "beta", "a", "b-1", "b_1", "z%", "Zeta"]

    static let byteStrings: [[UInt8]] = [[], [0], [0, 0], [1], [255], [1, 2, 3], [0xFB, 0xFF], [0xFA], Array("hello".utf8)]

    /// Centres of NEAR filters and distance sorts: ordinary places, near a pole, on the antimeridian.
    static let centres: [(Double, Double)] = [(37.33, -122.03), (0, 0), (51.5, -0.12), (-33.87, 151.21), (89.9, 10), (0.5, 179.95)]
    static let radii: [Double] = [0, 10, 1_000, 50_000, 1_000_000, 5_000_000, 21_000_000]

    /// Metres along a meridian per degree of latitude on the sphere the server measures on.
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// Locations: the centres, points just inside and just outside each radius due north and
    /// south of a centre (where a latitude pre-filter that is too tight loses records), and others.
    static let locations: [(Double, Double)] = {
        var points = centres
        for (latitude, longitude) in centres {
            for radius in radii where radius > 0 && radius < 10_000_000 {
                for factor in [0.9995, 1.0005, -0.9995] {
                    let moved = latitude + factor * radius / metresPerDegree
                    if (-90...90).contains(moved) { points.append((moved, longitude)) }
                }
            }
        }
        points += [(90, 0), (-90, 0), (0, 180), (0.5, -179.95), (45, 90), (-45, -90)]
        return points
    }()

    /// Pairs a careless implementation merges: canonically equivalent strings, and 0.0 with -0.0
    /// (equal numbers, different text).
    static let twins: [FieldType: [OracleScalar]] = [
        .string: [.text("e\u{301}"), .text("é")],
        .double: [.double(-0.0), .double(0.0)],
    ]

    static func randomString(_ random: inout OracleRandom) -> String {
        let alphabet = ["a", "b", "A", "%", "_", "\\", "é", "e\u{301}", "😀", " ", "日"]
        return (0..<random.int(0...6)).map { _ in random.pick(alphabet) }.joined()
    }

    /// A value of `type`: mostly from the pool, sometimes random.
    static func value(_ type: FieldType, _ random: inout OracleRandom) -> OracleScalar {
        let fresh = random.chance(0.15)
        switch type {
        case .string: return .text(fresh ? randomString(&random) : random.pick(strings))
        case .int64:
            return .int64(
                fresh
                    ? (random.chance(0.5) ? Int64.random(in: -100...100, using: &random) : Int64.random(in: .min ... .max, using: &random))
                    : random.pick(integers))
        case .double:
            if fresh {
                return .double(
                    random.chance(0.5)
                        ? Double(Int.random(in: -8...8, using: &random)) / 4
                        : Double.random(in: -1e12...1e12, using: &random))
            }
            return .double(random.pick(doubles))
        case .timestamp:
            return .timestamp(fresh ? Int64.random(in: -10_000_000_000_000...10_000_000_000_000, using: &random) : random.pick(timestamps))
        case .bytes:
            return .bytes(fresh ? (0..<random.int(0...5)).map { _ in UInt8.random(in: 0...255, using: &random) } : random.pick(byteStrings))
        case .reference: return .reference(random.pick(referenceNames))
        case .location:
            if fresh {
                return .location(latitude: Double.random(in: -90...90, using: &random), longitude: Double.random(in: -180...180, using: &random))
            }
            let (latitude, longitude) = random.pick(locations)
            return .location(latitude: latitude, longitude: longitude)
        case .asset: fatalError("the oracle does not generate assets")
        }
    }

    /// Record names: printable ASCII, with case and punctuation that byte order sorts apart.
    static func recordNames(count: Int) -> [String] {
        let special = ["A", "B", "a", "b", "a-b", "a b", "a%", "a_", "Z~", "~", "0", "00", "09", "9"]
        return special + (special.count..<count).map { String(format: "rec-%03d", $0) }
    }

    static func records(count: Int, _ random: inout OracleRandom) -> [OracleRecord] {
        recordNames(count: count).map { name in OracleRecord(name: name, fields: fields(&random)) }
    }

    /// Each field present three times in four; lists of zero to four elements.
    static func fields(_ random: inout OracleRandom) -> [String: OracleFieldValue] {
        var fields: [String: OracleFieldValue] = [:]
        for field in OracleField.all where random.chance(0.75) {
            if field.isList {
                var elements = (0..<random.int(0...4)).map { _ in value(field.scalar, &random) }
                // Values equal to Swift but not to the store: both must be kept and matched.
                if random.chance(0.2), let twins = twins[field.scalar] { elements += twins }
                fields[field.name] = .list(elements)
            } else {
                fields[field.name] = .scalar(value(field.scalar, &random))
            }
        }
        return fields
    }
}

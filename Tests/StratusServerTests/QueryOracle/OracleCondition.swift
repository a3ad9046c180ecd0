import StratusModel

/// A Stratus filter group, with its meaning written out: OR, AND, and a NOT that matches exactly
/// the records its member does not (two-valued, so a record without the field matches
/// `not: {EQUALS …}` though it matches no NOT_EQUALS).
indirect enum OracleCondition: Sendable {
    case filter(OracleFilter)
    case anyOf([OracleCondition])
    case allOf([OracleCondition])
    case not(OracleCondition)

    var json: JSONValue {
        switch self {
        case .filter(let filter): return filter.json
        case .anyOf(let members): return ["anyOf": .array(members.map(\.json))]
        case .allOf(let members): return ["allOf": .array(members.map(\.json))]
        case .not(let member): return ["not": member.json]
        }
    }

    func matches(_ record: OracleRecord) -> Bool {
        switch self {
        case .filter(let filter): return filter.matches(record)
        case .anyOf(let members): return members.contains { $0.matches(record) }
        case .allOf(let members): return members.allSatisfy { $0.matches(record) }
        case .not(let member): return !member.matches(record)
        }
    }

    /// The filters inside, at any depth.
    var filters: [OracleFilter] {
        switch self {
        case .filter(let filter): return [filter]
        case .anyOf(let members), .allOf(let members): return members.flatMap(\.filters)
        case .not(let member): return member.filters
        }
    }
}

extension OracleQueryGenerator {
    /// A group up to `depth` levels deep, of the generator's random filters.
    func condition(_ random: inout OracleRandom, depth: Int) -> OracleCondition {
        func member(_ random: inout OracleRandom) -> OracleCondition {
            depth > 1 && random.chance(0.35) ? condition(&random, depth: depth - 1) : .filter(filter(&random))
        }
        switch random.int(0...4) {
        case 0...2: return .anyOf((0..<random.pick([1, 2, 2, 3])).map { _ in member(&random) })
        case 3: return .not(member(&random))
        default: return .allOf((0..<random.pick([1, 2])).map { _ in member(&random) })
        }
    }
}

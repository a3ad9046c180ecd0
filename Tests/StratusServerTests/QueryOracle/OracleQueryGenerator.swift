import Foundation
import StratusEngine
import StratusModel

/// Random queries over the generated records: filters of every comparator on every field type that
/// supports it, sorts on ordered fields, system fields and distance, and page sizes from one record up.
struct OracleQueryGenerator {
    let records: [OracleRecord]

    static let pageSizes = [1, 1, 2, 3, 4, 7, 10, 25, 0]

    func query(_ random: inout OracleRandom) -> OracleQuery {
        let filterCount = random.pick([0, 1, 1, 1, 2, 2, 3])
        let sortCount = random.pick([0, 1, 1, 2, 2, 3])
        var query = OracleQuery(
            filters: (0..<filterCount).map { _ in filter(&random) },
            sorts: (0..<sortCount).map { _ in sort(&random) },
            pageSize: random.pick(OracleQueryGenerator.pageSizes))
        if random.chance(0.4) { query.groups = (0..<random.pick([1, 1, 2])).map { _ in condition(&random, depth: 3) } }
        return query
    }

    func field(_ name: String) -> OracleField { OracleField.all.first { $0.name == name }! }

    /// A value for `operand`: from the pool, or one a record holds (so equality hits).
    func value(for operand: OracleOperand, _ random: inout OracleRandom) -> OracleScalar {
        let record = random.pick(records)
        switch operand {
        case .recordName: return .text(random.chance(0.8) ? record.name : OracleValues.randomString(&random))
        case .createdTimestamp: return .timestamp(record.created + Int64(random.int(-1...1)))
        case .modifiedTimestamp: return .timestamp(record.modified + Int64(random.int(-1...1)))
        case .field(let field):
            if random.chance(0.3) {
                switch record.fields[field.name] {
                case .scalar(let held): return held
                case .list(let held) where !held.isEmpty: return random.pick(held)
                default: break
                }
            }
            return OracleValues.value(field.scalar, &random)
        }
    }

    func values(for operand: OracleOperand, _ random: inout OracleRandom) -> [OracleScalar] {
        (0..<random.pick([0, 1, 2, 3, 5])).map { _ in value(for: operand, &random) }
    }

    func filter(_ random: inout OracleRandom) -> OracleFilter {
        switch random.int(0...9) {
        case 0...3:
            let operand: OracleOperand =
                random.chance(0.8)
                ? .field(field(random.pick(["s", "i", "d", "t", "r"])))
                : random.pick([.recordName, .createdTimestamp, .modifiedTimestamp])
            let comparator = random.pick(["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS", "IN", "NOT_IN"])
            return scalarFilter(operand, comparator, &random)
        case 4:
            let operand = OracleOperand.field(field("b"))
            return scalarFilter(operand, random.pick(["EQUALS", "NOT_EQUALS", "IN", "NOT_IN"]), &random)
        case 5:
            let operand: OracleOperand = random.chance(0.8) ? .field(field("s")) : .recordName
            let prefix = random.chance(0.7) ? OracleScalar.text(random.pick(OracleValues.prefixes)) : value(for: operand, &random)
            return OracleFilter(operand: operand, comparator: random.pick(["BEGINS_WITH", "NOT_BEGINS_WITH"]), value: prefix)
        case 6:
            if random.chance(0.5) { return nearFilter(&random) }
            var text = random.pick(OracleValues.tokenQueries)
            if random.chance(0.3), case .scalar(.string(let held)) = random.pick(records).fields["s"] {
                let words = String(decoding: held, as: UTF8.self)
                if !TextTokenizer.tokens(words).isEmpty { text = words }
            }
            return OracleFilter(operand: .field(field("s")), comparator: random.pick(["CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS"]), value: .text(text))
        default:
            let list = field(random.pick(["sl", "il", "dl", "tl", "rl", "bl"]))
            var comparators = ["LIST_CONTAINS", "NOT_LIST_CONTAINS", "LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY", "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL"]
            if list.scalar == .string { comparators += ["LIST_MEMBER_BEGINS_WITH", "NOT_LIST_MEMBER_BEGINS_WITH"] }
            let comparator = random.pick(comparators)
            let operand = OracleOperand.field(list)
            if comparator.hasSuffix("BEGINS_WITH") {
                return OracleFilter(operand: operand, comparator: comparator, value: .text(random.pick(OracleValues.prefixes)))
            }
            if comparator.hasSuffix("_ANY") || comparator.hasSuffix("_ALL") {
                return OracleFilter(operand: operand, comparator: comparator, values: values(for: operand, &random))
            }
            return OracleFilter(operand: operand, comparator: comparator, value: value(for: operand, &random))
        }
    }

    func scalarFilter(_ operand: OracleOperand, _ comparator: String, _ random: inout OracleRandom) -> OracleFilter {
        if comparator.hasSuffix("IN") {
            return OracleFilter(operand: operand, comparator: comparator, values: values(for: operand, &random))
        }
        return OracleFilter(operand: operand, comparator: comparator, value: value(for: operand, &random))
    }

    /// A NEAR filter whose radius no record lies within a millimetre of (the server and the oracle
    /// compute the distance with different floating-point steps).
    func nearFilter(_ random: inout OracleRandom) -> OracleFilter {
        let location = field("l")
        while true {
            let (latitude, longitude) = random.pick(OracleValues.centres)
            let centre = OracleScalar.location(latitude: latitude, longitude: longitude)
            let radius = random.pick(OracleValues.radii)
            let clear = records.allSatisfy { record in
                guard case .scalar(let held) = record.fields[location.name], let metres = OracleFilter.metres(held, centre) else { return true }
                return abs(metres - radius) > 1e-3
            }
            if clear { return OracleFilter(operand: .field(location), comparator: "NEAR", value: centre, distance: radius) }
        }
    }

    func sort(_ random: inout OracleRandom) -> OracleSort {
        let ascending = random.chance(0.5)
        switch random.int(0...9) {
        case 0...5: return OracleSort(operand: .field(field(random.pick(["s", "i", "d", "t", "r"]))), ascending: ascending)
        case 6, 7: return OracleSort(operand: random.pick([.recordName, .createdTimestamp, .modifiedTimestamp]), ascending: ascending)
        default: return OracleSort(operand: .field(field("l")), ascending: ascending, relativeTo: distanceCentre(&random))
        }
    }

    /// A point from which the records' distinct locations all lie at clearly different distances,
    /// so rounding cannot reorder them.
    func distanceCentre(_ random: inout OracleRandom) -> OracleScalar {
        let held = Set(
            records.compactMap { record -> OracleScalar? in
                guard case .scalar(let value) = record.fields["l"] else { return nil }
                return value
            })
        while true {
            let centre = OracleScalar.location(
                latitude: Double.random(in: -80...80, using: &random),
                longitude: Double.random(in: -180...180, using: &random))
            let distances = held.compactMap { OracleFilter.metres($0, centre) }.sorted()
            if zip(distances, distances.dropFirst()).allSatisfy({ $1 - $0 > 1e-3 }) { return centre }
        }
    }
}

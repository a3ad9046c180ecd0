import FuzzSupport
@testable import StratusEngine
import StratusModel
import StratusWire

/// records/query: the request, then its query dictionary planned against the fixture schema in
/// development and in production; a plan is evaluated on a record as a subscription would.
func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? QueryRequest(json: body, limits: Fixtures.limits) else { return 0 }
    let query = request.query
    precondition((1...Fixtures.limits.maximumResultsPerResponse).contains(query.limit), "page size out of range: \(query.limit)")
    _ = ContinuationMarker.digest(store: Fixtures.store, fingerprint: query.fingerprint, zoneName: query.zoneName)
    for mode in [SchemaMode.justInTime, .enforced] {
        guard let planned = try? QueryPlanner(schema: Fixtures.schema).plan(query, mode: mode),
            let plan = planned.plan
        else { continue }
        _ = RecordPredicate(plan: plan).matches(Fixtures.note)
    }
    return 0
}

runFuzzer(fuzzQuery)

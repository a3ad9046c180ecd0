import FuzzSupport
@testable import StratusEngine
import StratusModel

/// records/query: the request, then its query dictionary planned against the fixture schema in
/// development and in production; a plan is evaluated on a record as a subscription would.
func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? QueryRequest(json: body, limits: Fixtures.limits) else { return 0 }
    precondition((1...Fixtures.limits.maximumResultsPerResponse).contains(request.limit), "page size out of range: \(request.limit)")
    _ = ContinuationMarker.digest(store: Fixtures.store, queryJSON: request.queryJSON, zoneName: request.zoneName)
    for mode in [SchemaMode.justInTime, .enforced] {
        guard let planned = try? QueryPlanner(schema: Fixtures.schema).plan(
            queryJSON: request.queryJSON, zoneName: request.zoneName, limit: request.limit, mode: mode),
            let plan = planned.plan
        else { continue }
        _ = RecordPredicate(plan: plan).matches(Fixtures.note)
    }
    return 0
}

runFuzzer(fuzzQuery)

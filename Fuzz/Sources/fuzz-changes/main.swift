import FuzzSupport
@testable import StratusEngine
import StratusModel

/// changes/zone, records/changes, changes/database and zones/changes: the same body read by each.
func fuzzChanges(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size) else { return 0 }
    let limits = Fixtures.limits
    let pageSizes = 1...limits.maximumResultsPerResponse
    if let zones = try? ZoneChangesRequest.zones(body: body, limits: limits) {
        for zone in zones { precondition(pageSizes.contains(zone.resultsLimit), "page size out of range: \(zone.resultsLimit)") }
    }
    if let single = try? ZoneChangesRequest.recordChanges(body: body, limits: limits) {
        precondition(pageSizes.contains(single.resultsLimit), "page size out of range: \(single.resultsLimit)")
    }
    for tokenKey in ["syncToken", "metaSyncToken"] {
        if let (_, limit) = try? ZoneChangesRequest.databaseChanges(body: body, tokenKey: tokenKey, limits: limits) {
            precondition(pageSizes.contains(limit), "page size out of range: \(limit)")
        }
    }
    return 0
}

runFuzzer(fuzzChanges)

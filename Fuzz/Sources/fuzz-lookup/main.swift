import FuzzSupport
@testable import StratusEngine
import StratusModel

/// records/lookup: the request's records, zone and options.
func fuzzLookup(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? LookupRequest(json: body, limits: Fixtures.limits) else { return 0 }
    precondition(request.requested.count <= Fixtures.limits.maximumResultsPerResponse, "more records than the limit")
    for item in request.requested {
        precondition(item.name.allSatisfy(\.isASCII), "a non-ASCII record name passed the check: \(item.name)")
    }
    return 0
}

runFuzzer(fuzzLookup)

import FuzzSupport
import StratusEngine
import StratusModel
import StratusWire

/// records/lookup: the request's records, zone and options.
func fuzzLookup(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? LookupRequest(json: body, limits: Fixtures.limits) else { return 0 }
    let names = request.lookup.recordNames
    precondition(names.count <= Fixtures.limits.maximumResultsPerResponse, "more records than the limit")
    precondition(request.desiredKeysByRecord.count == names.count, "desired keys not one per record")
    for name in names {
        precondition(name.allSatisfy(\.isASCII), "a non-ASCII record name passed the check: \(name)")
    }
    return 0
}

runFuzzer(fuzzLookup)

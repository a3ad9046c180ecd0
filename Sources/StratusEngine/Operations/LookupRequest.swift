import StratusModel

/// A parsed records/lookup request: the records asked for, in request order.
struct LookupRequest: Sendable {
    struct Requested: Sendable {
        var name: String
        /// Overrides the request's `desiredKeys` for this record.
        var desiredKeys: [String]?
    }

    var requested: [Requested]
    var zoneID: ZoneID
    var desiredKeys: [String]?
    var numbersAsStrings: Bool

    init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        do {
            let reader = try JSONObjectReader(json)
            let raw = try reader.array("records")
            if raw.count > limits.maximumResultsPerResponse {
                throw CloudKitError.badRequest("records has \(raw.count) entries; the limit is \(limits.maximumResultsPerResponse) per request — split the lookup")
            }
            requested = []
            for (position, value) in raw.enumerated() {
                let element = try JSONObjectReader(value, path: "records[\(position)]")
                let name = try element.string("recordName")
                try NameRules.checkASCII(name, what: "record name", path: element.child("recordName"))
                requested.append(Requested(name: name, desiredKeys: try element.optionalStringArray("desiredKeys")))
            }
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") } ?? .default
            desiredKeys = try reader.optionalStringArray("desiredKeys")
            numbersAsStrings = try reader.bool("numbersAsStrings", default: false)
        } catch {
            throw .parsing(error)
        }
    }
}

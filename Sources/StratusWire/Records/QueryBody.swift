import StratusEngine
import StratusModel

/// The members records/query, records/count and records/aggregate share: the `query`
/// dictionary and where it searches (`zoneID`, `zoneWide`).
struct QueryBody {
    let dictionary: JSONValue
    let zoneID: ZoneID?
    /// A named zone is searched alone; without one, zoneWide searches every zone and a plain
    /// query the default zone (CloudKit's records/query).
    let zoneName: String?

    init(_ reader: JSONObjectReader) throws(WireError) {
        guard let query = reader["query"] else { throw WireError(path: "query", problem: "is required") }
        dictionary = query
        zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
        let zoneWide = try reader.bool("zoneWide", default: false)
        zoneName = zoneID?.zoneName ?? (zoneWide ? nil : ZoneID.defaultZoneName)
    }

    func query(limit: Int, continuationMarker: String? = nil) throws(CloudKitError) -> RecordQuery {
        try RecordQuery(dictionary: dictionary, zoneID: zoneID, zoneName: zoneName, limit: limit, continuationMarker: continuationMarker)
    }
}

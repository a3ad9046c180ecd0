import Foundation

/// A location: `{"latitude", "longitude", …}` (docs/protocol.md §3.4). Accuracy, altitude in metres;
/// speed in m/s; course in degrees; timestamp in milliseconds since 1970.
public struct LocationValue: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    public var timestamp: Int64?

    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
        altitude: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: Int64? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    public init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        guard let latitude = try reader.optionalDouble("latitude") else {
            throw WireError(path: reader.child("latitude"), problem: "is required")
        }
        guard let longitude = try reader.optionalDouble("longitude") else {
            throw WireError(path: reader.child("longitude"), problem: "is required")
        }
        guard (-90...90).contains(latitude) else {
            throw WireError(path: reader.child("latitude"), problem: "must be between -90 and 90, got \(latitude)")
        }
        guard (-180...180).contains(longitude) else {
            throw WireError(path: reader.child("longitude"), problem: "must be between -180 and 180, got \(longitude)")
        }
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = try reader.optionalDouble("horizontalAccuracy")
        self.verticalAccuracy = try reader.optionalDouble("verticalAccuracy")
        self.altitude = try reader.optionalDouble("altitude")
        self.speed = try reader.optionalDouble("speed")
        self.course = try reader.optionalDouble("course")
        self.timestamp = try reader.optionalInt("timestamp")
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["latitude": .double(latitude), "longitude": .double(longitude)]
        if let horizontalAccuracy { members["horizontalAccuracy"] = .double(horizontalAccuracy) }
        if let verticalAccuracy { members["verticalAccuracy"] = .double(verticalAccuracy) }
        if let altitude { members["altitude"] = .double(altitude) }
        if let speed { members["speed"] = .double(speed) }
        if let course { members["course"] = .double(course) }
        if let timestamp { members["timestamp"] = .int(timestamp) }
        return .object(members)
    }

    /// Great-circle distance in metres (haversine on a sphere of the Earth's mean radius).
    public func distance(to other: LocationValue) -> Double {
        LocationValue.haversineMetres(latitude, longitude, other.latitude, other.longitude)
    }

    /// The Earth's mean radius: distances are measured on a sphere of this radius.
    public static let earthRadiusMetres = 6_371_008.8

    /// Metres along a meridian per degree of latitude on that sphere: a point `d` metres away
    /// lies at most `d / metresPerDegreeOfLatitude` degrees north or south.
    public static let metresPerDegreeOfLatitude = earthRadiusMetres * Double.pi / 180

    public static func haversineMetres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let earthRadius = earthRadiusMetres
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

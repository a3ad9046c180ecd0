/// Reads members of a JSON object with errors that name the member's path.
public struct JSONObjectReader: Sendable {
    public let members: [String: JSONValue]
    public let path: String

    public init(_ value: JSONValue, path: String = "") throws(WireError) {
        guard case .object(let members) = value.resolved else {
            throw WireError(path: path, problem: "expected an object, got \(value.kindName)")
        }
        self.members = members
        self.path = path
    }

    public func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member, treating JSON `null` as absent.
    public subscript(key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    public func string(_ key: String) throws(WireError) -> String {
        guard let value = self[key] else { throw WireError(path: child(key), problem: "is required") }
        guard let string = value.stringValue else {
            throw WireError(path: child(key), problem: "expected a string, got \(value.kindName)")
        }
        return string
    }

    public func optionalString(_ key: String) throws(WireError) -> String? {
        guard self[key] != nil else { return nil }
        return try string(key)
    }

    public func bool(_ key: String, default defaultValue: Bool) throws(WireError) -> Bool {
        guard let value = self[key] else { return defaultValue }
        guard let bool = value.boolValue else {
            throw WireError(path: child(key), problem: "expected a boolean, got \(value.kindName)")
        }
        return bool
    }

    public func optionalInt(_ key: String) throws(WireError) -> Int64? {
        guard let value = self[key] else { return nil }
        if let int = value.int64Value { return int }
        if let text = value.stringValue, let int = Int64(text) { return int }
        throw WireError(path: child(key), problem: "expected an integer, got \(value.kindName)")
    }

    public func optionalDouble(_ key: String) throws(WireError) -> Double? {
        guard let value = self[key] else { return nil }
        if let double = value.doubleValue { return double }
        if let text = value.stringValue, let double = Double(text) { return double }
        throw WireError(path: child(key), problem: "expected a number, got \(value.kindName)")
    }

    public func object(_ key: String) throws(WireError) -> JSONObjectReader {
        guard let value = self[key] else { throw WireError(path: child(key), problem: "is required") }
        return try JSONObjectReader(value, path: child(key))
    }

    public func optionalObject(_ key: String) throws(WireError) -> JSONObjectReader? {
        guard let value = self[key] else { return nil }
        return try JSONObjectReader(value, path: child(key))
    }

    public func array(_ key: String) throws(WireError) -> [JSONValue] {
        guard let value = self[key] else { throw WireError(path: child(key), problem: "is required") }
        guard let array = value.arrayValue else {
            throw WireError(path: child(key), problem: "expected an array, got \(value.kindName)")
        }
        return array
    }

    public func optionalArray(_ key: String) throws(WireError) -> [JSONValue]? {
        guard self[key] != nil else { return nil }
        return try array(key)
    }

    /// `desiredKeys`: absent or null means all fields, `[]` means system fields only.
    public func optionalStringArray(_ key: String) throws(WireError) -> [String]? {
        guard let elements = try optionalArray(key) else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            guard let string = element.stringValue else {
                throw WireError(path: "\(child(key))[\(position)]", problem: "expected a string, got \(element.kindName)")
            }
            strings.append(string)
        }
        return strings
    }
}

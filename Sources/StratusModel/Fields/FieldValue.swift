import Foundation

/// A typed record field value.
public indirect enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    /// Milliseconds since 1970-01-01T00:00Z.
    case timestamp(Int64)
    case bytes(Data)
    case reference(ReferenceValue)
    case location(LocationValue)
    case asset(AssetValue)
    /// A list; the element type is `nil` only for an empty list whose type is not known.
    case list(FieldType?, [FieldValue])

    /// The value's type; `nil` for an empty list of unknown type.
    public var typeDescriptor: FieldTypeDescriptor? {
        switch self {
        case .string: return FieldTypeDescriptor(.string)
        case .int64: return FieldTypeDescriptor(.int64)
        case .double: return FieldTypeDescriptor(.double)
        case .timestamp: return FieldTypeDescriptor(.timestamp)
        case .bytes: return FieldTypeDescriptor(.bytes)
        case .reference: return FieldTypeDescriptor(.reference)
        case .location: return FieldTypeDescriptor(.location)
        case .asset: return FieldTypeDescriptor(.asset)
        case .list(let element, _): return element.map { FieldTypeDescriptor($0, isList: true) }
        }
    }

    /// The tag written in responses. An empty list keeps its element type's tag (`STRING_LIST`)
    /// when the schema or the request gave one, as Apple's service answers; `UNKNOWN_LIST` only
    /// when no type is known.
    public var responseTag: String { typeDescriptor?.responseTag ?? "UNKNOWN_LIST" }
}

// MARK: - Wire encoding

extension FieldValue {
    /// The field dictionary `{"value": …, "type": …}` of a response.
    public func fieldJSON(numbersAsStrings: Bool = false) -> JSONValue {
        .object(["value": valueJSON(numbersAsStrings: numbersAsStrings), "type": .string(responseTag)])
    }

    /// The bare value as it appears under `"value"`.
    public func valueJSON(numbersAsStrings: Bool = false) -> JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .int64(let i): return numbersAsStrings ? .string(String(i)) : .int(i)
        case .double(let d): return numbersAsStrings ? .string(String(d)) : .double(d)
        case .timestamp(let t): return .int(t)
        case .bytes(let data): return .string(data.base64EncodedString())
        case .reference(let reference): return reference.json
        case .location(let location): return location.json
        case .asset(let asset): return asset.json
        case .list(_, let elements): return .array(elements.map { $0.valueJSON(numbersAsStrings: numbersAsStrings) })
        }
    }
}

// MARK: - Wire decoding

extension FieldValue {
    /// The outcome of reading a field dictionary: a value, or an instruction to clear the field.
    public enum Decoded: Sendable, Hashable {
        case value(FieldValue)
        case clear
    }

    /// Reads a field dictionary `{"value": …, "type"?: …}`; `{"value": null}` clears the field.
    ///
    /// The type comes from, in order: `expected` (the schema's declared type), the request's
    /// `type` tag, the JSON shape of the value. A tag that is not a field type, or that contradicts
    /// the schema, is refused; so is a dictionary without `value`. Numbers may arrive as strings
    /// (`numbersAsStrings`).
    public static func decode(fieldJSON: JSONValue, path: String, expected: FieldTypeDescriptor?) throws(WireError) -> Decoded {
        let reader = try JSONObjectReader(fieldJSON, path: path)
        guard let rawValue = reader.members["value"] else {
            throw WireError(path: reader.child("value"), problem: "is required; send {\"value\": null} to clear the field")
        }
        // The tag is checked before a null clears the field: `{"type": "FOO", "value": null}` is
        // as wrong as any other value under an unknown tag.
        var tagged: FieldTypeDescriptor?
        var untypedList = false
        if let tag = try reader.optionalString("type") {
            switch FieldTypeDescriptor.fromTag(tag) {
            case .typed(let descriptor)?: tagged = descriptor
            case .untypedList?: untypedList = true
            case nil:
                throw WireError(
                    path: reader.child("type"),
                    problem: "'\(tag.prefix(40))' is not a field type; use STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, LOCATION or ASSET, or a list of one such as STRING_LIST")
            }
            if let tagged, let expected, tagged != expected {
                throw WireError(
                    path: reader.child("type"),
                    problem: "the field is \(expected) in the schema; the request says \(tagged)")
            }
        }
        if rawValue.isNull { return .clear }
        let valuePath = reader.child("value")
        if let target = expected ?? tagged {
            return .value(try convert(rawValue, to: target, path: valuePath))
        }
        if untypedList {
            guard case .array = rawValue.resolved else {
                throw WireError(path: valuePath, problem: "expected a list for type LIST, got \(rawValue.kindName)")
            }
        }
        return .value(try infer(rawValue, path: valuePath))
    }

    /// Infers the type of an untagged value from its JSON shape.
    public static func infer(_ json: JSONValue, path: String) throws(WireError) -> FieldValue {
        let json = json.resolved
        if case .array(let elements) = json {
            guard let first = elements.first else { return .list(nil, []) }
            let elementType = try inferScalarType(first, path: "\(path)[0]")
            return try convert(json, to: FieldTypeDescriptor(elementType, isList: true), path: path)
        }
        let scalar = try inferScalarType(json, path: path)
        return try convertScalar(json, to: scalar, path: path)
    }

    static func inferScalarType(_ json: JSONValue, path: String) throws(WireError) -> FieldType {
        switch json {
        case .string: return .string
        case .int, .bool: return .int64
        case .double: return .double
        case .object(let members):
            if members["recordName"] != nil { return .reference }
            if members["latitude"] != nil { return .location }
            if members["fileChecksum"] != nil || members["receipt"] != nil || members["size"] != nil { return .asset }
            throw WireError(path: path, problem: "cannot tell the type of this object; add a \"type\" tag (REFERENCE, LOCATION or ASSET)")
        case .array: throw WireError(path: path, problem: "lists cannot contain lists")
        case .null: throw WireError(path: path, problem: "lists cannot contain null")
        case .raw(let raw): return try inferScalarType(raw.parsed, path: path)
        }
    }

    /// Converts a JSON value to the given type, or explains why it cannot.
    public static func convert(_ json: JSONValue, to type: FieldTypeDescriptor, path: String) throws(WireError) -> FieldValue {
        let json = json.resolved
        guard type.isList else {
            if case .array = json {
                throw WireError(path: path, problem: "expected a single \(type.scalar.rawValue) value, got a list")
            }
            return try convertScalar(json, to: type.scalar, path: path)
        }
        guard case .array(let elements) = json else {
            throw WireError(path: path, problem: "expected a list of \(type.scalar.rawValue), got \(json.kindName)")
        }
        var values: [FieldValue] = []
        values.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            values.append(try convertScalar(element, to: type.scalar, path: "\(path)[\(position)]"))
        }
        return .list(type.scalar, values)
    }

    static func convertScalar(_ json: JSONValue, to type: FieldType, path: String) throws(WireError) -> FieldValue {
        let json = json.resolved
        func mismatch() -> WireError {
            WireError(path: path, problem: "expected a \(type.rawValue) value, got \(json.kindName)")
        }
        switch type {
        case .string:
            guard let string = json.stringValue else { throw mismatch() }
            return .string(string)
        case .int64, .timestamp:
            let integer: Int64?
            switch json {
            // true/false is CloudKit's Boolean, an INT64 0 or 1; it is not a time.
            case .bool(let b) where type == .int64: integer = b ? 1 : 0
            case .string(let text): integer = Int64(text)
            case .double(let d) where type == .timestamp && d.isFinite && abs(d) < 9.2e18: integer = Int64(d.rounded())
            default: integer = json.int64Value
            }
            guard let integer else {
                if case .double = json { throw WireError(path: path, problem: "expected a whole number for \(type.rawValue), got a fraction") }
                throw mismatch()
            }
            return type == .int64 ? .int64(integer) : .timestamp(integer)
        case .double:
            if case .string(let text) = json, let double = Double(text), double.isFinite { return .double(double) }
            guard let double = json.doubleValue else { throw mismatch() }
            return .double(double)
        case .bytes:
            guard let text = json.stringValue else { throw mismatch() }
            guard let data = Data(base64Encoded: text) else {
                throw WireError(path: path, problem: "BYTES must be base64; this string is not")
            }
            return .bytes(data)
        case .reference: return .reference(try ReferenceValue(json: json, path: path))
        case .location: return .location(try LocationValue(json: json, path: path))
        case .asset: return .asset(try AssetValue(json: json, path: path))
        }
    }
}

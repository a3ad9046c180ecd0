import Foundation

/// The scalar types a record field can hold (docs/protocol.md §3.3).
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case timestamp = "TIMESTAMP"
    case bytes = "BYTES"
    case reference = "REFERENCE"
    case location = "LOCATION"
    case asset = "ASSET"

    /// The tag written in responses: assets are `ASSETID` on the wire.
    public var responseTag: String { self == .asset ? "ASSETID" : rawValue }

    /// Whether values of this type have an order (and so can be range-filtered and sorted).
    public var isOrdered: Bool {
        switch self {
        case .string, .int64, .double, .timestamp, .reference: return true
        case .bytes, .location, .asset: return false
        }
    }
}

/// A field's declared type: a scalar or a list of scalars.
public struct FieldTypeDescriptor: Sendable, Hashable, CustomStringConvertible {
    public var scalar: FieldType
    public var isList: Bool

    public init(_ scalar: FieldType, isList: Bool = false) {
        self.scalar = scalar
        self.isList = isList
    }

    /// The schema-language spelling: `STRING` or `LIST<STRING>`.
    public var description: String { isList ? "LIST<\(scalar.rawValue)>" : scalar.rawValue }

    /// The response tag: `STRING`, `STRING_LIST`, `ASSETID_LIST`.
    public var responseTag: String { isList ? "\(scalar.responseTag)_LIST" : scalar.responseTag }

    /// What a request's type tag names: a type, or a list whose element type the value decides
    /// (`LIST`, `UNKNOWN_LIST`).
    public enum Tag: Sendable, Hashable {
        case typed(FieldTypeDescriptor)
        case untypedList
    }

    /// Reads a request type tag: the documented tags, `ASSETID`, and the spellings some clients
    /// send (`INT`, `INTEGER`, `NUMBER_INT64`, `DATETIME`, `DATE`, `BYTE`, `LIST`). Tags are
    /// upper case, as Apple's; anything else is `nil`, and the caller refuses it.
    public static func fromTag(_ tag: String) -> Tag? {
        if tag == "LIST" || tag == "UNKNOWN_LIST" { return .untypedList }
        var name = Substring(tag)
        var isList = false
        if name.hasSuffix("_LIST") {
            isList = true
            name = name.dropLast(5)
        }
        if name.hasPrefix("NUMBER_") { name = name.dropFirst(7) }
        let scalar: FieldType
        switch name {
        case "STRING": scalar = .string
        case "INT64", "INT", "INTEGER", "NUMBER": scalar = .int64
        case "DOUBLE": scalar = .double
        case "TIMESTAMP", "DATETIME", "DATE": scalar = .timestamp
        case "BYTES", "BYTE": scalar = .bytes
        case "REFERENCE": scalar = .reference
        case "LOCATION": scalar = .location
        case "ASSET", "ASSETID": scalar = .asset
        default: return nil
        }
        return .typed(FieldTypeDescriptor(scalar, isList: isList))
    }

    /// Parses the schema-language spelling (`STRING`, `LIST<INT64>`).
    public init?(schemaName: String) {
        let upper = schemaName.uppercased().replacingOccurrences(of: " ", with: "")
        if upper.hasPrefix("LIST<"), upper.hasSuffix(">") {
            guard let scalar = FieldType(rawValue: String(upper.dropFirst(5).dropLast())) else { return nil }
            self.init(scalar, isList: true)
        } else {
            guard let scalar = FieldType(rawValue: upper) else { return nil }
            self.init(scalar)
        }
    }
}

import Foundation

/// How a record holds one field internally: a tagged value, whatever Swift or Foundation type the
/// caller stored. Booleans and all integer widths are `int64`; `Float` is `double`.
enum RecordFieldValue: Hashable, @unchecked Sendable {
    // @unchecked Sendable: the object payloads (reference, location, asset) are immutable classes.
    case string(String)
    case int64(Int64)
    case double(Double)
    case date(Date)
    case bytes(Data)
    case reference(CKRecord.Reference)
    case location(CLLocation)
    case asset(CKAsset)
    case list([RecordFieldValue])

    /// The value as the untyped subscript returns it: numbers as `NSNumber` (so `as? Int`,
    /// `as? Int64`, `as? Double` all work, as on Apple platforms), strings as `String`, lists as
    /// typed Swift arrays.
    var object: any CKRecordValueProtocol {
        switch self {
        case .string(let s): return s
        case .int64(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .date(let d): return d
        case .bytes(let d): return d
        case .reference(let r): return r
        case .location(let l): return l
        case .asset(let a): return a
        case .list(let items): return RecordFieldValue.listObject(items)
        }
    }

    private static func listObject(_ items: [RecordFieldValue]) -> any CKRecordValueProtocol {
        guard let first = items.first else { return [String]() }
        switch first {
        case .string: return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        case .int64, .double: return items.compactMap { $0.object as? NSNumber }
        case .date: return items.compactMap { if case .date(let d) = $0 { d } else { nil } }
        case .bytes: return items.compactMap { if case .bytes(let d) = $0 { d } else { nil } }
        case .reference: return items.compactMap { if case .reference(let r) = $0 { r } else { nil } }
        case .location: return items.compactMap { if case .location(let l) = $0 { l } else { nil } }
        case .asset: return items.compactMap { if case .asset(let a) = $0 { a } else { nil } }
        case .list: return [String]()
        }
    }

    /// Whether the value holds a local file the server has not received.
    var needsUpload: Bool {
        switch self {
        case .asset(let asset): return asset.wire == nil
        case .list(let items): return items.contains(where: \.needsUpload)
        default: return false
        }
    }

    /// The numeric value, when this is a number, for width conversions.
    var number: NSNumber? {
        switch self {
        case .int64(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        default: return nil
        }
    }

    /// Converts any supported value; `nil` for a type CloudKit cannot store.
    static func from(_ value: Any) -> RecordFieldValue? {
        if let bridged = value as? any RecordValueBridge { return bridged.recordFieldValue }
        return nil
    }
}

/// The internal half of ``CKRecordValueProtocol``: how each conforming type becomes a stored value
/// and back.
protocol RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { get }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self?
}

import Foundation

/// A type that can be stored in a record field: strings, numbers, `Bool`, `Date`, `Data`,
/// ``CKAsset``, ``CKRecord/Reference``, `CLLocation`, and arrays of those.
///
/// Only the types listed here conform; the server stores nothing else.
public protocol CKRecordValueProtocol {}

/// The type of a record field value, as `CKRecordValue` in Apple's SDK (`"v" as CKRecordValue`).
public typealias CKRecordValue = CKRecordValueProtocol

/// The Objective-C name of ``CKRecordValue`` in Apple's SDK.
public typealias __CKRecordObjCValue = CKRecordValueProtocol

extension String: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .string(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> String? {
        if case .string(let s) = value { return s }
        return nil
    }
}

extension NSString: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .string(self as String) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        if case .string(let s) = value { return NSString(string: s) as? Self }
        return nil
    }
}

extension Date: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .date(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Date? {
        if case .date(let d) = value { return d }
        return nil
    }
}

extension NSDate: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .date(self as Date) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        if case .date(let d) = value { return NSDate(timeIntervalSince1970: d.timeIntervalSince1970) as? Self }
        return nil
    }
}

extension Data: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .bytes(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Data? {
        if case .bytes(let d) = value { return d }
        return nil
    }
}

extension NSData: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .bytes(self as Data) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        if case .bytes(let d) = value { return NSData(data: d) as? Self }
        return nil
    }
}

extension NSNumber: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { isFloatingPoint ? .double(doubleValue) : .int64(int64Value) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        switch value {
        case .int64(let i): return NSNumber(value: i) as? Self
        case .double(let d): return NSNumber(value: d) as? Self
        default: return nil
        }
    }

    /// Whether the number was made from a floating-point value.
    var isFloatingPoint: Bool {
        let type = String(cString: objCType)
        return type == "d" || type == "f"
    }
}

extension NSArray: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? {
        var items: [RecordFieldValue] = []
        for element in self {
            guard let item = RecordFieldValue.from(element) else { return nil }
            items.append(item)
        }
        return .list(items)
    }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        guard case .list(let items) = value else { return nil }
        return NSArray(array: items.map { $0.object }) as? Self
    }
}

extension Array: CKRecordValueProtocol where Element: CKRecordValueProtocol {}

extension Array: RecordValueBridge where Element: CKRecordValueProtocol {
    var recordFieldValue: RecordFieldValue? {
        var items: [RecordFieldValue] = []
        items.reserveCapacity(count)
        for element in self {
            guard let item = RecordFieldValue.from(element) else { return nil }
            items.append(item)
        }
        return .list(items)
    }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> [Element]? {
        guard case .list(let items) = value else { return nil }
        guard let bridge = Element.self as? any RecordValueBridge.Type else { return nil }
        var result: [Element] = []
        for item in items {
            guard let element = bridge.fromRecordFieldValue(item) as? Element else { return nil }
            result.append(element)
        }
        return result
    }
}

extension CKRecord.Reference: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .reference(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        if case .reference(let r) = value { return r as? Self }
        return nil
    }
}

extension CKAsset: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .asset(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> CKAsset? {
        if case .asset(let a) = value { return a }
        return nil
    }
}

extension CLLocation: CKRecordValueProtocol, RecordValueBridge {
    var recordFieldValue: RecordFieldValue? { .location(self) }
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        if case .location(let l) = value { return l as? Self }
        return nil
    }
}

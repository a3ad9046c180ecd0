import Foundation

/// Numbers are stored as INT64 or DOUBLE; reading converts to the requested width the way
/// `NSNumber` does on Apple platforms (`let n: Int? = record["count"]`).
protocol RecordNumberBridge: RecordValueBridge {
    static func fromNumber(_ number: NSNumber) -> Self
}

extension RecordNumberBridge {
    static func fromRecordFieldValue(_ value: RecordFieldValue) -> Self? {
        value.number.map(fromNumber)
    }
}

extension Int: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> Int { n.intValue }
}
extension Int8: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> Int8 { n.int8Value }
}
extension Int16: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> Int16 { n.int16Value }
}
extension Int32: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> Int32 { n.int32Value }
}
extension Int64: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(self) }
    static func fromNumber(_ n: NSNumber) -> Int64 { n.int64Value }
}
extension UInt: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(bitPattern: UInt64(self))) }
    static func fromNumber(_ n: NSNumber) -> UInt { n.uintValue }
}
extension UInt8: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> UInt8 { n.uint8Value }
}
extension UInt16: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> UInt16 { n.uint16Value }
}
extension UInt32: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(self)) }
    static func fromNumber(_ n: NSNumber) -> UInt32 { n.uint32Value }
}
extension UInt64: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(Int64(bitPattern: self)) }
    static func fromNumber(_ n: NSNumber) -> UInt64 { n.uint64Value }
}
extension Double: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .double(self) }
    static func fromNumber(_ n: NSNumber) -> Double { n.doubleValue }
}
extension Float: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .double(Double(self)) }
    static func fromNumber(_ n: NSNumber) -> Float { n.floatValue }
}
extension Bool: CKRecordValueProtocol, RecordNumberBridge {
    var recordFieldValue: RecordFieldValue? { .int64(self ? 1 : 0) }
    static func fromNumber(_ n: NSNumber) -> Bool { n.boolValue }
}

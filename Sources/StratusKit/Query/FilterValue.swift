import Foundation
import StratusModel

/// Converts a predicate argument or literal to the field value a CKWS filter carries.
enum FilterValue {
    static func fieldValue(_ value: Any, context: String) throws(CKError) -> FieldValue {
        switch value {
        case let b as Bool where !(value is NSNumber): return .int64(b ? 1 : 0)
        case let s as String: return .string(s)
        case let i as Int: return .int64(Int64(i))
        case let i as Int64: return .int64(i)
        case let i as Int32: return .int64(Int64(i))
        case let i as Int16: return .int64(Int64(i))
        case let i as Int8: return .int64(Int64(i))
        case let u as UInt: return .int64(Int64(bitPattern: UInt64(u)))
        case let u as UInt64: return .int64(Int64(bitPattern: u))
        case let u as UInt32: return .int64(Int64(u))
        case let d as Double: return .double(d)
        case let f as Float: return .double(Double(f))
        case let n as NSNumber: return n.isFloatingPoint ? .double(n.doubleValue) : .int64(n.int64Value)
        case let d as Date: return .timestamp(d.millisecondsSince1970)
        case let d as Data: return .bytes(d)
        case let r as CKRecord.Reference: return .reference(referenceValue(r.recordID))
        case let id as CKRecord.ID: return .reference(referenceValue(id))
        case let record as CKRecord: return .reference(referenceValue(record.recordID))
        case let l as CLLocation: return .location(l.wire)
        case let s as NSString: return .string(s as String)
        case let array as [Any]: return try list(array, context: context)
        case let array as NSArray: return try list(array.map { $0 }, context: context)
        default:
            throw PredicateError.invalid("a value of type \(type(of: value)) cannot be used in a query (in '\(context)')")
        }
    }

    static func list(_ array: [Any], context: String) throws(CKError) -> FieldValue {
        var elements: [FieldValue] = []
        for element in array {
            let value = try fieldValue(element, context: context)
            if case .list = value { throw PredicateError.invalid("lists of lists cannot be queried (in '\(context)')") }
            elements.append(value)
        }
        return .list(elements.first?.typeDescriptor?.scalar, elements)
    }

    /// A filter reference: record name, and zone when it is not the default.
    static func referenceValue(_ id: CKRecord.ID) -> ReferenceValue {
        ReferenceValue(recordName: id.recordName, zoneID: id.zoneID == .default ? nil : id.zoneID.wire, action: .none)
    }
}

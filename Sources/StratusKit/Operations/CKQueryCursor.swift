import Foundation
import StratusModel

// The class is top-level because keyed archiving on Linux cannot name nested classes; apps use the nested name.
/// Marks where a query's results continue. Pass it to `CKQueryOperation(cursor:)` or
/// `records(continuingMatchFrom:)`.
public final class __CKQueryCursor: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.
    let wireQuery: JSONValue
    let zoneID: CKRecordZone.ID?
    let continuationMarker: String

    init(wireQuery: JSONValue, zoneID: CKRecordZone.ID?, continuationMarker: String) {
        self.wireQuery = wireQuery
        self.zoneID = zoneID
        self.continuationMarker = continuationMarker
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let marker = coder.decodeIfPresent(NSString.self, forKey: "marker"),
            let queryData = coder.decodeIfPresent(NSData.self, forKey: "query"),
            let query = try? JSONValue.parse(queryData as Data)
        else { return nil }
        self.continuationMarker = marker as String
        self.wireQuery = query
        self.zoneID = coder.decodeIfPresent(CKRecordZone.ID.self, forKey: "zoneID")
        super.init()
    }

    public func encode(with coder: NSCoder) {
        coder.encode(continuationMarker as NSString, forKey: "marker")
        coder.encode(wireQuery.serializedData as NSData, forKey: "query")
        if let zoneID { coder.encode(zoneID, forKey: "zoneID") }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

extension CKQueryOperation {
    /// Marks where a query's results continue. Pass it to `CKQueryOperation(cursor:)` or
    /// `records(continuingMatchFrom:)`.
    public typealias Cursor = __CKQueryCursor
}

/// An opaque server change token.
public final class CKServerChangeToken: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.
    let value: String

    init(value: String) {
        self.value = value
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        guard let value = coder.decodeIfPresent(NSString.self, forKey: "token") else { return nil }
        self.value = value as String
        super.init()
    }

    public func encode(with coder: NSCoder) { coder.encode(value as NSString, forKey: "token") }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool { (object as? CKServerChangeToken)?.value == value }
    public override var hash: Int { value.hashValue }
}

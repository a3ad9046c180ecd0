import Foundation
import StratusModel

/// A notification from a subscription, as the server delivers it (an APNs-shaped payload whose
/// `ck` member says what changed). Read them from ``CKContainer/notifications(delivery:)``.
///
/// `@unchecked Sendable`: every stored property is a `let` set in the initializer (NSObject
/// subclasses cannot be checked).
open class CKNotification: NSObject, @unchecked Sendable {
    /// The notification's unique ID.
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }
    }

    /// Which kind of subscription fired.
    public enum NotificationType: Int, Sendable {
        case query = 1
        case recordZone = 2
        case readNotification = 3
        case database = 4
    }

    public let notificationType: NotificationType
    public let notificationID: CKNotification.ID?
    public let containerIdentifier: String?
    /// The user whose subscription fired.
    public let subscriptionOwnerUserRecordID: CKRecord.ID?
    /// Always false here: the server never trims a payload.
    public let isPruned: Bool
    public let subscriptionID: CKSubscription.ID?
    /// The alert text from the subscription's notification info, when it asked for one.
    public let alertBody: String?
    public let title: String?
    public let subtitle: String?
    public let soundName: String?
    public let category: String?
    public let badge: NSNumber?

    init(type: NotificationType, payload: JSONValue, subscriptionID: String?) {
        let ck = payload["ck"]
        let alert = payload["aps"]?["alert"]
        notificationType = type
        notificationID = ck?["nid"]?.stringValue.map(ID.init(rawValue:))
        containerIdentifier = ck?["cid"]?.stringValue
        subscriptionOwnerUserRecordID = ck?["ckuserid"]?.stringValue.map { CKRecord.ID(recordName: $0) }
        isPruned = false
        self.subscriptionID = subscriptionID
        alertBody = alert?.stringValue ?? alert?["body"]?.stringValue
        title = alert?["title"]?.stringValue
        subtitle = alert?["subtitle"]?.stringValue
        soundName = payload["aps"]?["sound"]?.stringValue
        category = payload["aps"]?["category"]?.stringValue
        badge = payload["aps"]?["badge"]?.int64Value.map { NSNumber(value: $0) }
        super.init()
    }

    /// The factory this SDK offered before `CKNotification(fromRemoteNotificationDictionary:)`.
    @available(*, deprecated, renamed: "CKNotification.init(fromRemoteNotificationDictionary:)")
    public static func notification(fromRemoteNotificationDictionary dictionary: [AnyHashable: Any]) -> CKNotification? {
        CKNotification(fromRemoteNotificationDictionary: dictionary)
    }

    /// Reads a payload in its JSON form (a web-courier frame).
    static func notification(payload: JSONValue) -> CKNotification? {
        guard let ck = payload["ck"] else { return nil }
        if let query = ck["qry"] { return CKQueryNotification(payload: payload, query: query) }
        if let zone = ck["fet"] { return CKRecordZoneNotification(payload: payload, zone: zone) }
        if let database = ck["met"] { return CKDatabaseNotification(payload: payload, database: database) }
        return nil
    }

    static func scope(_ json: JSONValue?) -> CKDatabase.Scope {
        json?.int64Value.flatMap { CKDatabase.Scope(rawValue: Int($0)) } ?? .private
    }

    static func zoneID(_ json: JSONValue) -> CKRecordZone.ID? {
        guard let name = json["zid"]?.stringValue else { return nil }
        return CKRecordZone.ID(zoneName: name, ownerName: json["zoid"]?.stringValue ?? CKCurrentUserDefaultName)
    }
}

/// A query subscription fired: a matching record was created, updated or deleted.
public final class CKQueryNotification: CKNotification, @unchecked Sendable {
    /// What happened to the record: created, updated or deleted.
    public enum Reason: Int, Sendable {
        case recordCreated = 1
        case recordUpdated = 2
        case recordDeleted = 3
    }

    public let queryNotificationReason: Reason
    /// The fields the subscription asked for (`desiredKeys`), when any.
    public let recordFields: [String: Any]?
    public let recordID: CKRecord.ID?
    public let databaseScope: CKDatabase.Scope

    init(payload: JSONValue, query: JSONValue) {
        queryNotificationReason = query["fo"]?.int64Value.flatMap { Reason(rawValue: Int($0)) } ?? .recordUpdated
        let zone = CKNotification.zoneID(query) ?? CKRecordZone.ID.default
        recordID = query["rid"]?.stringValue.map { CKRecord.ID(recordName: $0, zoneID: zone) }
        databaseScope = CKNotification.scope(query["dbs"])
        recordFields = query["af"]?.objectValue.map { fields in
            fields.compactMapValues { value -> Any? in
                switch value {
                case .string(let s): return s
                case .int(let i): return NSNumber(value: i)
                case .double(let d): return NSNumber(value: d)
                case .bool(let b): return NSNumber(value: b)
                default: return value.serializedString
                }
            }
        }
        super.init(type: .query, payload: payload, subscriptionID: query["sid"]?.stringValue)
    }
}

/// A zone subscription fired: something changed in the zone.
public final class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    public let recordZoneID: CKRecordZone.ID?
    public let databaseScope: CKDatabase.Scope

    init(payload: JSONValue, zone: JSONValue) {
        recordZoneID = CKNotification.zoneID(zone)
        databaseScope = CKNotification.scope(zone["dbs"])
        super.init(type: .recordZone, payload: payload, subscriptionID: zone["sid"]?.stringValue)
    }
}

/// A database subscription fired: something changed in the database.
public final class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    public let databaseScope: CKDatabase.Scope

    init(payload: JSONValue, database: JSONValue) {
        databaseScope = CKNotification.scope(database["dbs"])
        super.init(type: .database, payload: payload, subscriptionID: database["sid"]?.stringValue)
    }
}

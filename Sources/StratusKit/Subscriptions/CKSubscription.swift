import Foundation
import StratusModel

/// A persistent request for notifications of changes. Use a subclass: ``CKQuerySubscription``,
/// ``CKRecordZoneSubscription`` or ``CKDatabaseSubscription``.
public class CKSubscription: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: as in Apple's SDK; configured before it is saved.

    /// A subscription's identifier.
    public typealias ID = String

    /// What a subscription watches.
    public enum SubscriptionType: Int, Sendable {
        case query = 1
        case recordZone = 2
        case database = 3
    }

    /// The subscription's identifier.
    public let subscriptionID: CKSubscription.ID
    /// What the subscription watches.
    public let subscriptionType: SubscriptionType
    /// What a notification carries.
    public var notificationInfo: CKSubscription.NotificationInfo?

    init(subscriptionID: CKSubscription.ID, type: SubscriptionType) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = type
        super.init()
    }

    public class var supportsSecureCoding: Bool { true }

    /// Archives the subscription as its CKWS dictionary (see Subscriptions/CKSubscription+Coding.swift).
    public func encode(with coder: NSCoder) { encodeWire(with: coder) }

    /// Restores an archived subscription; `nil` when the archive holds none.
    public required init?(coder: NSCoder) {
        guard let json = CKSubscription.archivedWire(coder), let id = json["subscriptionID"]?.stringValue else { return nil }
        subscriptionID = id
        subscriptionType = CKSubscription.type(ofWire: json)
        notificationInfo = json["notificationInfo"].map(CKSubscription.NotificationInfo.init(wire:))
        super.init()
    }

    /// The CKWS subscription dictionary (docs/protocol.md §7.1).
    func wire() throws(CKError) -> JSONValue {
        var members: [String: JSONValue] = ["subscriptionID": .string(subscriptionID)]
        if let info = notificationInfo { members["notificationInfo"] = info.wire }
        return .object(members)
    }

    /// Builds the right subclass from a CKWS subscription dictionary.
    static func from(wire json: JSONValue) -> CKSubscription? {
        guard let id = json["subscriptionID"]?.stringValue else { return nil }
        let zoneID = zoneID(ofWire: json)
        let subscription: CKSubscription
        switch json["subscriptionType"]?.stringValue {
        case "query":
            let query = CKQuerySubscription(
                recordType: json["query"]?["recordType"]?.stringValue ?? "",
                predicate: CKQuerySubscription.predicate(ofWireQuery: json["query"]), subscriptionID: id,
                options: CKQuerySubscription.Options(firesOn: json))
            query.zoneID = zoneID
            query.wireQuery = json["query"]
            subscription = query
        case "zone":
            subscription = CKRecordZoneSubscription(zoneID: zoneID ?? .default, subscriptionID: id)
        default:
            subscription = CKDatabaseSubscription(subscriptionID: id)
        }
        if let info = json["notificationInfo"] { subscription.notificationInfo = CKSubscription.NotificationInfo(wire: info) }
        return subscription
    }
}

/// Notifies about records of a type that match a predicate.
public final class CKQuerySubscription: CKSubscription, @unchecked Sendable {
    // @unchecked Sendable: see CKSubscription.

    /// When a query subscription fires.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let firesOnRecordCreation = Options(rawValue: 1)
        public static let firesOnRecordUpdate = Options(rawValue: 2)
        public static let firesOnRecordDeletion = Options(rawValue: 4)
        public static let firesOnce = Options(rawValue: 8)

        init(firesOn json: JSONValue) {
            var options: Options = []
            for event in json["firesOn"]?.arrayValue ?? [] {
                switch event.stringValue {
                case "create": options.insert(.firesOnRecordCreation)
                case "update": options.insert(.firesOnRecordUpdate)
                case "delete": options.insert(.firesOnRecordDeletion)
                default: break
                }
            }
            if json["firesOnce"]?.boolValue == true { options.insert(.firesOnce) }
            self = options
        }
    }

    public let recordType: CKRecord.RecordType?
    public let predicate: NSPredicate
    /// Limits the subscription to one zone.
    public var zoneID: CKRecordZone.ID?
    public let querySubscriptionOptions: Options
    /// The query as the server sent it, for subscriptions that were fetched.
    var wireQuery: JSONValue?

    public init(
        recordType: CKRecord.RecordType, predicate: NSPredicate, subscriptionID: CKSubscription.ID,
        options querySubscriptionOptions: Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
    ) {
        self.recordType = recordType
        self.predicate = predicate
        self.querySubscriptionOptions = querySubscriptionOptions
        super.init(subscriptionID: subscriptionID, type: .query)
    }

    /// Restores an archived query subscription. Its filter is kept as the server reads it (and sent
    /// so when saved); `predicate` is rebuilt from it, as for a fetched subscription.
    public required init?(coder: NSCoder) {
        guard let json = CKSubscription.archivedWire(coder) else { return nil }
        recordType = json["query"]?["recordType"]?.stringValue
        predicate = CKQuerySubscription.predicate(ofWireQuery: json["query"])
        querySubscriptionOptions = Options(firesOn: json)
        super.init(coder: coder)
        zoneID = CKSubscription.zoneID(ofWire: json)
        wireQuery = json["query"]
    }

    @available(*, deprecated, message: "Use init(recordType:predicate:subscriptionID:options:)")
    public convenience init(recordType: CKRecord.RecordType, predicate: NSPredicate, options querySubscriptionOptions: Options) {
        self.init(recordType: recordType, predicate: predicate, subscriptionID: UUID().uuidString, options: querySubscriptionOptions)
    }

    override func wire() throws(CKError) -> JSONValue {
        var members = try super.wire().objectValue ?? [:]
        members["subscriptionType"] = "query"
        var query = wireQuery
        if query == nil { query = try CKQuery(recordType: recordType ?? "", predicate: predicate).wireQuery() }
        members["query"] = query ?? .object(["recordType": .string(recordType ?? "")])
        var firesOn: [JSONValue] = []
        if querySubscriptionOptions.contains(.firesOnRecordCreation) { firesOn.append("create") }
        if querySubscriptionOptions.contains(.firesOnRecordUpdate) { firesOn.append("update") }
        if querySubscriptionOptions.contains(.firesOnRecordDeletion) { firesOn.append("delete") }
        members["firesOn"] = .array(firesOn)
        members["firesOnce"] = .bool(querySubscriptionOptions.contains(.firesOnce))
        if let zoneID { members["zoneID"] = zoneID.wire.json; members["zoneWide"] = false } else { members["zoneWide"] = true }
        return .object(members)
    }
}

/// Notifies about any change in one zone.
public final class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    // @unchecked Sendable: see CKSubscription.
    public let zoneID: CKRecordZone.ID
    public var recordType: CKRecord.RecordType?

    public init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID) {
        self.zoneID = zoneID
        super.init(subscriptionID: subscriptionID, type: .recordZone)
    }

    public required init?(coder: NSCoder) {
        guard let json = CKSubscription.archivedWire(coder), let zoneID = CKSubscription.zoneID(ofWire: json) else { return nil }
        self.zoneID = zoneID
        super.init(coder: coder)
    }

    @available(*, deprecated, message: "Use init(zoneID:subscriptionID:)")
    public convenience init(zoneID: CKRecordZone.ID) {
        self.init(zoneID: zoneID, subscriptionID: UUID().uuidString)
    }

    override func wire() throws(CKError) -> JSONValue {
        var members = try super.wire().objectValue ?? [:]
        members["subscriptionType"] = "zone"
        members["zoneID"] = zoneID.wire.json
        return .object(members)
    }
}

/// Notifies about any change in the database.
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    // @unchecked Sendable: see CKSubscription.
    public var recordType: CKRecord.RecordType?

    public init(subscriptionID: CKSubscription.ID) {
        super.init(subscriptionID: subscriptionID, type: .database)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    @available(*, deprecated, message: "Use init(subscriptionID:)")
    public convenience init() {
        self.init(subscriptionID: UUID().uuidString)
    }

    override func wire() throws(CKError) -> JSONValue {
        var members = try super.wire().objectValue ?? [:]
        members["subscriptionType"] = "database"
        return .object(members)
    }
}

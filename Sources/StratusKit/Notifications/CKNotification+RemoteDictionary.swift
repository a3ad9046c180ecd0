import Foundation
import StratusModel

/// Gives ``CKNotification`` its `init?(fromRemoteNotificationDictionary:)`. The initializer lives
/// in a protocol extension because only there may an initializer replace `self` with an instance
/// of a subclass, which is what CloudKit's does. Not meant to be adopted by other types.
public protocol _CKRemoteNotificationInitializable {}

extension CKNotification: _CKRemoteNotificationInitializable {}

extension _CKRemoteNotificationInitializable where Self: CKNotification {
    /// Reads a push payload (the `userInfo` of a remote notification, or a web-courier frame read
    /// with `JSONSerialization`): CloudKit's `ck` member says which subscription fired, `aps`
    /// holds the alert. Yields the subclass the payload describes (``CKQueryNotification``,
    /// ``CKRecordZoneNotification`` or ``CKDatabaseNotification``), so `as?` works on the result.
    /// `nil` when the payload holds no CloudKit notification, or (called on a subclass) one of
    /// another kind.
    public init?(fromRemoteNotificationDictionary notificationDictionary: [AnyHashable: Any]) {
        guard let payload = JSONValue(pushPayloadMember: notificationDictionary),
            let notification = CKNotification.notification(payload: payload) as? Self
        else { return nil }
        self = notification
    }
}

extension JSONValue {
    /// A push payload's value as JSON: strings, numbers, booleans, arrays and dictionaries with
    /// string keys (as APNs and `JSONSerialization` deliver them); `nil` for anything else.
    init?(pushPayloadMember value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let number as Int: self = .int(Int64(number))
        case let number as Int64: self = .int(number)
        case let number as Double: self = number.rounded() == number && abs(number) < 9e15 ? .int(Int64(number)) : .double(number)
        case let flag as Bool: self = .bool(flag)
        case let number as NSNumber: self = .double(number.doubleValue)
        case let list as [Any]:
            var elements: [JSONValue] = []
            for element in list {
                guard let json = JSONValue(pushPayloadMember: element) else { return nil }
                elements.append(json)
            }
            self = .array(elements)
        case let dictionary as [AnyHashable: Any]:
            var members: [String: JSONValue] = [:]
            for (key, member) in dictionary {
                guard let key = key.base as? String, let json = JSONValue(pushPayloadMember: member) else { return nil }
                members[key] = json
            }
            self = .object(members)
        default:
            return nil
        }
    }
}

import Foundation
import StratusModel

extension CKSubscription {
    /// What a subscription's notifications carry.
    public class NotificationInfo: NSObject, @unchecked Sendable {
        // @unchecked Sendable: as in Apple's SDK; configured before it is saved.
        public var alertBody: String?
        public var alertLocalizationKey: String?
        public var alertLocalizationArgs: [CKRecord.FieldKey]?
        public var title: String?
        public var titleLocalizationKey: String?
        public var titleLocalizationArgs: [CKRecord.FieldKey]?
        public var subtitle: String?
        public var subtitleLocalizationKey: String?
        public var subtitleLocalizationArgs: [CKRecord.FieldKey]?
        public var alertActionLocalizationKey: String?
        public var alertLaunchImage: String?
        public var soundName: String?
        public var desiredKeys: [CKRecord.FieldKey]?
        public var shouldBadge = false
        public var shouldSendContentAvailable = false
        public var shouldSendMutableContent = false
        public var category: String?
        public var collapseIDKey: String?

        public override init() { super.init() }

        public convenience init(
            alertBody: String? = nil, alertLocalizationKey: String? = nil, alertLocalizationArgs: [CKRecord.FieldKey] = [],
            title: String? = nil, titleLocalizationKey: String? = nil, titleLocalizationArgs: [CKRecord.FieldKey] = [],
            subtitle: String? = nil, subtitleLocalizationKey: String? = nil, subtitleLocalizationArgs: [CKRecord.FieldKey] = [],
            alertActionLocalizationKey: String? = nil, alertLaunchImage: String? = nil, soundName: String? = nil,
            desiredKeys: [CKRecord.FieldKey] = [], shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false,
            shouldSendMutableContent: Bool = false, category: String? = nil, collapseIDKey: String? = nil
        ) {
            self.init()
            self.alertBody = alertBody
            self.alertLocalizationKey = alertLocalizationKey
            self.alertLocalizationArgs = alertLocalizationArgs
            self.title = title
            self.titleLocalizationKey = titleLocalizationKey
            self.titleLocalizationArgs = titleLocalizationArgs
            self.subtitle = subtitle
            self.subtitleLocalizationKey = subtitleLocalizationKey
            self.subtitleLocalizationArgs = subtitleLocalizationArgs
            self.alertActionLocalizationKey = alertActionLocalizationKey
            self.alertLaunchImage = alertLaunchImage
            self.soundName = soundName
            self.desiredKeys = desiredKeys
            self.shouldBadge = shouldBadge
            self.shouldSendContentAvailable = shouldSendContentAvailable
            self.shouldSendMutableContent = shouldSendMutableContent
            self.category = category
            self.collapseIDKey = collapseIDKey
        }

        private var strings: [(String, String?)] {
            [
                ("alertBody", alertBody), ("alertLocalizationKey", alertLocalizationKey), ("title", title),
                ("titleLocalizationKey", titleLocalizationKey), ("subtitle", subtitle), ("subtitleLocalizationKey", subtitleLocalizationKey),
                ("alertActionLocalizationKey", alertActionLocalizationKey), ("alertLaunchImage", alertLaunchImage),
                ("soundName", soundName), ("category", category), ("collapseIDKey", collapseIDKey),
            ]
        }

        /// The CKWS notification info dictionary (docs/protocol.md §7.1).
        var wire: JSONValue {
            var members: [String: JSONValue] = [:]
            for (key, value) in strings { if let value { members[key] = .string(value) } }
            for (key, value) in [
                ("alertLocalizationArgs", alertLocalizationArgs), ("titleLocalizationArgs", titleLocalizationArgs),
                ("subtitleLocalizationArgs", subtitleLocalizationArgs), ("desiredKeys", desiredKeys),
            ] {
                if let value, !value.isEmpty { members[key] = .array(value.map { .string($0) }) }
            }
            members["shouldBadge"] = .bool(shouldBadge)
            members["shouldSendContentAvailable"] = .bool(shouldSendContentAvailable)
            members["shouldSendMutableContent"] = .bool(shouldSendMutableContent)
            return .object(members)
        }

        convenience init(wire json: JSONValue) {
            self.init()
            alertBody = json["alertBody"]?.stringValue
            alertLocalizationKey = json["alertLocalizationKey"]?.stringValue
            title = json["title"]?.stringValue
            subtitle = json["subtitle"]?.stringValue
            soundName = json["soundName"]?.stringValue
            category = json["category"]?.stringValue
            desiredKeys = json["desiredKeys"]?.arrayValue?.compactMap(\.stringValue)
            shouldBadge = json["shouldBadge"]?.boolValue ?? false
            shouldSendContentAvailable = json["shouldSendContentAvailable"]?.boolValue ?? false
        }
    }
}

/// The pre-Swift-4.2 name of ``CKSubscription/NotificationInfo``.
@available(*, deprecated, renamed: "CKSubscription.NotificationInfo")
public typealias CKNotificationInfo = CKSubscription.NotificationInfo

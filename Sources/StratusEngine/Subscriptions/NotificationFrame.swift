import StratusModel

/// Builds the APNs-shaped frames of docs/protocol.md §7.2: `aps` from the subscription's
/// `notificationInfo`, `ck` with the notification ID, container, subscriber and one of `qry`
/// (query), `fet` (zone) or `met` (database).
struct NotificationFrame {
    let store: StoreKey
    let subscriber: String
    let subscription: Subscription

    func query(nid: String, record: RecordRow, kind: RecordChangeKind) -> JSONValue {
        var qry: [String: JSONValue] = [
            "sid": .string(subscription.subscriptionID), "rid": .string(record.recordName),
            "zid": .string(record.zoneName), "zoid": .string(zoneOwner(store)),
            "dbs": .int(Int64(store.scope.nativeValue)), "fo": .int(kind.reason),
        ]
        // `additionalFields` values ride along as `af` (Apple's key for them is unconfirmed).
        let wanted =
            subscription.notificationInfo?["additionalFields"]?.arrayValue?.compactMap(\.stringValue)
            ?? subscription.notificationInfo?["desiredKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var fields: [String: JSONValue] = [:]
        for name in wanted { if let value = record.fields[name] { fields[name] = value.valueJSON() } }
        if !fields.isEmpty { qry["af"] = .object(fields) }
        return frame(nid: nid, key: "qry", body: qry)
    }

    func zone(nid: String, zoneName: String) -> JSONValue {
        frame(
            nid: nid, key: "fet",
            body: [
                "sid": .string(subscription.subscriptionID), "zid": .string(zoneName), "zoid": .string(zoneOwner(store)),
                "dbs": .int(Int64(store.scope.nativeValue)),
            ])
    }

    func database(nid: String) -> JSONValue {
        frame(nid: nid, key: "met", body: ["sid": .string(subscription.subscriptionID), "dbs": .int(Int64(store.scope.nativeValue))])
    }

    func frame(nid: String, key: String, body: [String: JSONValue]) -> JSONValue {
        var members: [String: JSONValue] = [
            "ck": .object([
                "ce": 2, "cid": .string(store.container), "ckuserid": .string(subscriber), "nid": .string(nid),
                key: .object(body),
            ])
        ]
        if let aps = aps { members["aps"] = aps }
        return .object(members)
    }

    /// The `aps` dictionary, or `nil` when the subscription asks for no alert, badge, sound or
    /// content-available (a silent frame then carries `ck` only).
    var aps: JSONValue? {
        guard let info = subscription.notificationInfo?.objectValue else { return nil }
        var aps: [String: JSONValue] = [:]
        var alert: [String: JSONValue] = [:]
        let alertKeys: [(String, String)] = [
            ("alertBody", "body"), ("alertLocalizationKey", "loc-key"), ("alertLocalizationArgs", "loc-args"),
            ("alertActionLocalizationKey", "action-loc-key"), ("alertLaunchImage", "launch-image"),
            ("title", "title"), ("titleLocalizationKey", "title-loc-key"), ("titleLocalizationArgs", "title-loc-args"),
            ("subtitle", "subtitle"),
        ]
        for (from, to) in alertKeys { if let value = info[from], !value.isNull { alert[to] = value } }
        if alert.count == 1, let body = alert["body"] { aps["alert"] = body } else if !alert.isEmpty { aps["alert"] = .object(alert) }
        if info["shouldBadge"]?.boolValue == true { aps["badge"] = 1 }
        if let sound = info["soundName"]?.stringValue { aps["sound"] = .string(sound) }
        if let category = info["category"]?.stringValue { aps["category"] = .string(category) }
        if info["shouldSendContentAvailable"]?.boolValue == true { aps["content-available"] = 1 }
        if info["shouldSendMutableContent"]?.boolValue == true { aps["mutable-content"] = 1 }
        return aps.isEmpty ? nil : .object(aps)
    }
}

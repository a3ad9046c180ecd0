import StratusModel

/// A notification as a provider receives it: CloudKit's `aps` and `ck` dictionaries, made to
/// fit the provider's size limit, with the APNs headers the content calls for.
struct PushPayload: Sendable, Equatable {
    /// APNs refuses larger payloads (`PayloadTooLarge`).
    static let apnsLimit = 4096
    /// One aes128gcm record of 4096 bytes less its header, tag and padding delimiter (RFC 8291).
    static let webPushLimit = 3993

    let body: String
    /// `alert` when the notification shows something (alert, badge or sound), else `background`.
    let pushType: String
    /// 10 sends at once; 5 lets the device choose its moment, required for background pushes.
    let priority: Int
    /// Zone and database notifications of one subscription replace each other on the device
    /// (each says "fetch changes"); query notifications name a record and are kept apart.
    let collapseID: String?

    /// `nil` when even the smallest form does not fit.
    init?(frame text: String, limit: Int) {
        guard let frame = try? JSONValue.parse(text), let fitted = PushPayload.fit(frame, limit: limit) else { return nil }
        body = fitted.serializedString
        let aps = fitted["aps"]
        let visible = aps?["alert"] != nil || aps?["badge"] != nil || aps?["sound"] != nil
        pushType = visible ? "alert" : "background"
        priority = visible ? 10 : 5
        let ck = fitted["ck"]
        if ck?["qry"] == nil, let sid = (ck?["fet"]?["sid"] ?? ck?["met"]?["sid"])?.stringValue, sid.utf8.count <= 64 {
            collapseID = sid
        } else {
            collapseID = nil
        }
    }

    /// Shrinks a frame the way CloudKit does: the record's `af` fields go first (largest first),
    /// then the alert text is shortened, then the alert goes; `ck` itself is always kept.
    static func fit(_ frame: JSONValue, limit: Int) -> JSONValue? {
        var frame = frame
        func fits() -> Bool { frame.serializedString.utf8.count <= limit }
        if fits() { return frame }
        if var ck = frame["ck"]?.objectValue, var qry = ck["qry"]?.objectValue, var fields = qry["af"]?.objectValue {
            let size = fields.mapValues { $0.serializedString.utf8.count }
            // Largest first; equal sizes by name, so the same frame is always cut the same way.
            let largestFirst = fields.keys.sorted { (size[$0] ?? 0, $1) > (size[$1] ?? 0, $0) }
            for name in largestFirst {
                fields[name] = nil
                qry["af"] = fields.isEmpty ? nil : .object(fields)
                ck["qry"] = .object(qry)
                frame = frame.setting("ck", .object(ck))
                if fits() { return frame }
            }
        }
        guard var aps = frame["aps"]?.objectValue, let alert = aps["alert"] else { return nil }
        var text = alert.stringValue ?? alert["body"]?.stringValue ?? ""
        while !text.isEmpty {
            text = String(text.dropLast(max(1, text.count / 4)))
            aps["alert"] = .string(text + "…")
            frame = frame.setting("aps", .object(aps))
            if fits() { return frame }
        }
        aps["alert"] = nil
        frame = frame.setting("aps", .object(aps))
        return fits() ? frame : nil
    }
}

extension JSONValue {
    /// This object with one member replaced.
    func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        var members = objectValue ?? [:]
        members[key] = value
        return .object(members)
    }
}

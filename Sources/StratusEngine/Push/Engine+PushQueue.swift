import StratusModel

extension Engine {
    /// Queues a push for each notification whose token has an APNs or Web Push address, in the
    /// transaction that queued the courier frames: the pushes commit with the write or not at all.
    /// A push that is not accepted within the courier's retention is dropped.
    func queuePushes(_ queued: [QueuedNotification], writer: any StorageWriter) async throws {
        guard !queued.isEmpty else { return }
        let addresses = try await writer.pushAddresses(digests: Array(Set(queued.map(\.token.digest))))
        guard !addresses.isEmpty else { return }
        let now = nowMilliseconds()
        let expires = now + limits.notificationRetentionSeconds * 1000
        for item in queued where addresses[item.token.digest] != nil {
            try await writer.enqueuePush(
                tokenDigest: item.token.digest, container: item.token.container,
                environment: item.token.environment, subscriptionID: Engine.subscriptionID(of: item.frame),
                payload: item.frame.serializedString, nowMilliseconds: now, expiresMilliseconds: expires)
        }
    }

    /// The `sid` of a frame's `qry`, `fet` or `met` dictionary.
    static func subscriptionID(of frame: JSONValue) -> String {
        for key in ["qry", "fet", "met"] {
            if let sid = frame["ck"]?[key]?["sid"]?.stringValue { return sid }
        }
        return ""
    }
}

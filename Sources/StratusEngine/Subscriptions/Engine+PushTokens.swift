import Foundation
import StratusModel

extension Engine {
    /// The courier path of a token: `/webcourier/1/{hex of the token bytes}`. The server makes it
    /// an absolute URL. Whoever holds the URL reads the token's queue, as with Apple's courier.
    public static let webCourierPathPrefix = "/webcourier/1/"

    /// tokens/create: a new push token for the caller, readable through its web courier URL.
    /// It receives notifications once registered with tokens/register.
    public func createPushToken(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let apnsEnvironment = try readAPNsEnvironment(body)
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        let courierKey = hexString(bytes)
        let apnsToken = Data(bytes).base64EncodedString()
        let row = PushTokenRow(
            digest: secretDigest(courierKey), container: scope.store.container, environment: scope.store.environment,
            userRecordName: scope.caller.effectiveRecordName, apnsEnvironment: apnsEnvironment,
            apnsToken: apnsToken, registered: false)
        try await storage.write { writer in try await writer.savePushToken(row) }
        return .object([
            "apnsEnvironment": .string(apnsEnvironment),
            "apnsToken": .string(apnsToken),
            "webcourierURL": .string(Engine.webCourierPathPrefix + courierKey),
        ])
    }

    /// tokens/register: binds a token (base64 `apnsToken`, from tokens/create or a device) to the
    /// caller, so the caller's subscriptions queue notifications for it. A token belongs to whoever
    /// created or first registered it: another user registering it is refused, so nobody can
    /// redirect someone else's notifications.
    ///
    /// A token nobody created with tokens/create is an Apple device's: its pushes also go to APNs.
    /// A body with `webPushSubscription` registers a browser's push subscription instead.
    public func registerPushToken(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        if body["webPushSubscription"] != nil { return try await registerWebPushSubscription(scope, body: body) }
        let apnsEnvironment = try readAPNsEnvironment(body)
        let tokenText = try readingWire { () throws(WireError) in try JSONObjectReader(body).string("apnsToken") }
        guard let bytes = Data(base64Encoded: tokenText), !bytes.isEmpty, bytes.count <= 256 else {
            throw CloudKitError.badRequest("apnsToken: expected the base64 token that tokens/create returned (or a device token in base64)")
        }
        let courierKey = hexString(bytes)
        let row = PushTokenRow(
            digest: secretDigest(courierKey), container: scope.store.container, environment: scope.store.environment,
            userRecordName: scope.caller.effectiveRecordName, apnsEnvironment: apnsEnvironment,
            apnsToken: tokenText, registered: true)
        try await storage.write { writer in
            let existing = try await writer.pushToken(digest: row.digest)
            if let existing, existing.container != row.container || existing.userRecordName != row.userRecordName {
                throw CloudKitError(.accessDenied, "this apnsToken is registered to another user; create one of your own with tokens/create")
            }
            try await writer.savePushToken(row)
            var isDevice = existing == nil
            if !isDevice { isDevice = !(try await writer.pushAddresses(digests: [row.digest]).isEmpty) }
            if isDevice {
                try await writer.savePushAddress(digest: row.digest, address: .apns(deviceToken: courierKey, environment: apnsEnvironment))
            }
        }
        return .object([:])
    }

    func readAPNsEnvironment(_ body: JSONValue) throws -> String {
        let value = try readingWire { () throws(WireError) in try JSONObjectReader(body).optionalString("apnsEnvironment") }
        let environment = value ?? "development"
        guard environment == "development" || environment == "production" else {
            throw CloudKitError.badRequest("apnsEnvironment: must be development or production, got '\(environment.prefix(40))'")
        }
        return environment
    }

    /// One web-courier poll: removes and returns the oldest queued frame of the token (as JSON
    /// text), waiting up to `timeout` for one to arrive; `nil` when none came. An unknown
    /// courier key is NOT_FOUND (the client should stop polling).
    public func pollWebCourier(courierKey: String, timeout: Duration) async throws -> String? {
        let digest = secretDigest(courierKey)
        return try await waitForFrame(digest: digest, timeout: timeout) { try await self.takeNotification(digest: digest) }
    }

    /// As ``pollWebCourier(courierKey:timeout:)`` but leaves the frame queued: the caller removes
    /// it with ``acknowledgeWebCourierFrame(courierKey:id:)`` once it was delivered, so a frame
    /// whose delivery failed (the client went away mid-write) is delivered next time instead of
    /// lost. Two readers of one courier may then both deliver a frame (at least once).
    public func peekWebCourier(courierKey: String, timeout: Duration) async throws -> CourierFrame? {
        let digest = secretDigest(courierKey)
        return try await waitForFrame(digest: digest, timeout: timeout) {
            let notBefore = nowMilliseconds() - self.limits.notificationRetentionSeconds * 1000
            return try await self.storage.read { reader in try await reader.oldestFrame(tokenDigest: digest, notBefore: notBefore) }
        }
    }

    /// Removes a frame ``peekWebCourier(courierKey:timeout:)`` returned, after it was delivered.
    public func acknowledgeWebCourierFrame(courierKey: String, id: Int64) async throws {
        let digest = secretDigest(courierKey)
        try await storage.write { writer in try await writer.deleteFrame(tokenDigest: digest, id: id) }
    }

    /// Checks the courier's token exists, then runs `next` until it returns a frame, waiting for
    /// frames to be queued for the token, up to `timeout`.
    func waitForFrame<Frame>(digest: String, timeout: Duration, _ next: () async throws -> Frame?) async throws -> Frame? {
        guard try await storage.read({ reader in try await reader.pushToken(digest: digest) }) != nil else {
            throw CloudKitError(.notFound, "no push token for this web courier URL; create one with tokens/create")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let seen = notifications.version(digest)
            if let frame = try await next() { return frame }
            // Sleep in short steps until a frame is queued for this token or time is up.
            while notifications.version(digest) == seen {
                if clock.now >= deadline { return nil }
                try await Task.sleep(for: min(.milliseconds(50), deadline - clock.now))
            }
        }
    }

    /// Removes and returns the oldest frame of a token, ignoring frames past retention.
    func takeNotification(digest: String) async throws -> String? {
        let notBefore = nowMilliseconds() - limits.notificationRetentionSeconds * 1000
        return try await storage.write { writer in try await writer.takeFrame(tokenDigest: digest, notBefore: notBefore) }
    }
}

/// Runs a wire read, turning its error into BAD_REQUEST.
func readingWire<T>(_ body: () throws(WireError) -> T) throws(CloudKitError) -> T {
    do {
        return try body()
    } catch {
        throw .wire(error)
    }
}

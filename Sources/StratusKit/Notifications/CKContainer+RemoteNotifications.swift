import Foundation
import StratusModel

/// The APNs environment a device token was issued in: `development` for builds run from Xcode,
/// `production` for TestFlight and App Store builds (the app's `aps-environment` entitlement).
public enum CKPushEnvironment: String, Sendable {
    case development
    case production
}

extension CKContainer {
    /// Hands the server the APNs device token the system gave the app, so the signed-in user's
    /// subscriptions reach this device through Apple's push service, in the background too.
    ///
    /// Call it from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` with the
    /// token as given. The token belongs to the signed-in user from then on; registering it
    /// again (each launch, as Apple recommends) is harmless. Pushes arrive with CloudKit's payload,
    /// which ``CKNotification`` reads. The server must have the app's APNs key
    /// (`stratus push apns`).
    public func registerForRemoteNotifications(deviceToken: Data, environment: CKPushEnvironment = .development) async throws {
        guard !deviceToken.isEmpty, deviceToken.count <= 256 else {
            throw CKError(.invalidArguments, "deviceToken: expected the token the system passed to the app (1 to 256 bytes), got \(deviceToken.count) bytes")
        }
        _ = try await client.send(
            .private, "tokens/register",
            body: .object([
                "apnsEnvironment": .string(environment.rawValue),
                "apnsToken": .string(deviceToken.base64EncodedString()),
            ]))
    }
}

import Foundation
import StratusEngine
import StratusKit
import Testing

/// An app hands the server its APNs device token with one call.
@Suite struct RemoteNotificationsLiveTests {
    @Test("registerForRemoteNotifications(deviceToken:) makes the token an APNs address of the signed-in user")
    func registersDeviceToken() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let token = Data((0..<32).map { UInt8($0 * 7 % 256) })
        try await container.registerForRemoteNotifications(deviceToken: token, environment: .production)
        let hex = token.map { String(format: "%02x", $0) }.joined()
        let digest = secretDigest(hex)
        let (row, addresses) = try await server.engine.storage.read { reader in
            (try await reader.pushToken(digest: digest), try await reader.pushAddresses(digests: [digest]))
        }
        #expect(row?.registered == true)
        #expect(row?.container == container.containerIdentifier)
        #expect(row?.userRecordName.isEmpty == false)
        #expect(addresses[digest] == .apns(deviceToken: hex, environment: "production"))

        // Another user cannot take the token over.
        let other = try await server.makeContainer()
        await #expect(throws: CKError.self) { try await other.registerForRemoteNotifications(deviceToken: token) }
        await #expect(throws: CKError.self) { try await container.registerForRemoteNotifications(deviceToken: Data()) }
    }
}

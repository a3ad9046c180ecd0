import Crypto
import Foundation
@testable import StratusPush
import Synchronization
import Testing

/// APNs provider tokens are reused within Apple's 20–60 minute window.
@Suite struct ProviderTokensTests {
    @Test("one token for 50 minutes, a new one after; an expired one is replaced at once")
    func reuseWindow() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let tokens = ProviderTokens(now: { clock.withLock { $0 } })
        let settings = APNsSettings(
            keyPEM: P256.Signing.PrivateKey().pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456",
            topic: "com.example.notes", endpoint: nil)
        let first = try await tokens.token(for: settings)
        clock.withLock { $0 += 49 * 60 }
        #expect(try await tokens.token(for: settings) == first)
        clock.withLock { $0 += 2 * 60 }
        let second = try await tokens.token(for: settings)
        #expect(second != first)
        await tokens.expire(second)
        #expect(try await tokens.token(for: settings) != second)
    }
}

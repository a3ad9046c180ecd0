import Foundation
import Logging
import StratusEngine
@testable import StratusServer
import StratusTestSupport
import Testing

/// Instances on one database spend one budget between them: a user who spreads requests over
/// two instances gets one budget's worth, not two. PostgreSQL only: a SQLite folder has one
/// server, whose budgets live in its memory.
@Suite struct SharedRateLimitTests {
    @Test(.postgresOnly) func twoInstancesSpendOneBudget() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-rate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let (first, second, close) = try await TestBackend.openTwo(folder: folder, logger: logger)
        let configuration = RateLimitConfiguration(perSecond: 0.001, burst: 100)
        let limiters = [first, second].map { storage in
            RateLimiter(
                configuration: configuration,
                shared: Engine(storage: storage, secret: Array(repeating: 1, count: 32), logger: logger).takeRateTokens)
        }
        var allowed = 0
        for request in 0..<150 where await limiters[request % 2].spend("user:_ann").allowed {
            allowed += 1
        }
        #expect(allowed <= 100, "two instances allowed \(allowed) of one budget of 100")
        // Allowances an instance took but did not spend lapse after a second, so a slow machine
        // comes out some requests short; never over.
        #expect(allowed >= 50, "only \(allowed) allowed")
        let refused = await limiters[0].spend("user:_ann")
        #expect(!refused.allowed && refused.retryAfter > 900, "spent: the next request waits for the refill")
        await close()
    }
}

import Crypto
import Foundation
import StratusModel

/// APNs provider tokens (ES256 JWTs), one per signing key. Apple refuses a token older than an
/// hour and throttles a connection whose token changes more often than every 20 minutes, so a
/// token is reused for 50 minutes, and made again sooner only when APNs calls it expired.
actor ProviderTokens {
    static let reuse: TimeInterval = 50 * 60

    private var tokens: [String: (jwt: String, issued: Date)] = [:]
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    func token(for settings: APNsSettings) throws -> String {
        let cacheKey = settings.teamID + "/" + settings.keyID + "/" + String(settings.keyPEM.hashValue)
        let now = self.now()
        if let cached = tokens[cacheKey], now.timeIntervalSince(cached.issued) < ProviderTokens.reuse { return cached.jwt }
        let jwt = try ES256Token.make(
            header: ["alg": "ES256", "kid": .string(settings.keyID)],
            claims: ["iss": .string(settings.teamID), "iat": .int(Int64(now.timeIntervalSince1970))],
            key: try settings.signingKey())
        tokens[cacheKey] = (jwt, now)
        return jwt
    }

    /// Forgets `jwt` (APNs answered `ExpiredProviderToken`), so the next request makes a new one.
    func expire(_ jwt: String) {
        tokens = tokens.filter { $0.value.jwt != jwt }
    }
}

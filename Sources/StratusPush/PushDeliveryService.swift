import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import StratusEngine
import Synchronization

/// How the push queue is drained.
public struct PushDeliveryOptions: Sendable {
    /// Pushes in flight at once; each token has at most one, so a slow token holds one slot.
    public var concurrency = 16
    /// A provider that has not answered by then is treated as failing (the push is retried).
    public var requestTimeout: Duration = .seconds(10)
    /// How often an idle service looks for due pushes.
    public var pollInterval: Duration = .milliseconds(250)
    /// How often the delivery counts are logged (when they changed).
    public var summaryInterval: Duration = .seconds(60)
    /// Extra certificate authorities (PEM) trusted for providers, beside the system's: a push
    /// gateway with a private certificate, or a test server.
    public var trustedCertificatesPEM: String?

    public init() {}

    /// A lease outlives every request of a claim, so a push is never sent by two instances at once.
    var leaseMilliseconds: Int64 { max(30_000, 3 * requestTimeout.wholeMilliseconds) }
}

/// Drains the push queue: leases due pushes (one per token at a time), sends them to APNs or a
/// browser's push service, removes each only after the provider accepted it, retries with backoff,
/// drops expired pushes with the reason, and removes tokens the provider no longer knows. Runs on
/// every instance; the leases in the database share the queue between them.
public final class PushDeliveryService: Service, Sendable {
    let storage: any RecordStorage
    let logger: Logger
    let options: PushDeliveryOptions
    let holder = UUID().uuidString
    let client: HTTPClient
    let apns: APNsSender
    let webPush: WebPushSender
    let credentials = PushCredentialCache()
    public let statistics = PushStatistics()
    private let stopping = Atomic(false)
    private let warned = Mutex([String: ContinuousClock.Instant]())

    public init(storage: any RecordStorage, logger: Logger, options: PushDeliveryOptions = PushDeliveryOptions()) throws {
        self.storage = storage
        self.logger = logger
        self.options = options
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = options.trustedCertificatesPEM {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let timeout = TimeAmount.milliseconds(options.requestTimeout.wholeMilliseconds)
        apns = APNsSender(client: client, providerTokens: ProviderTokens(), timeout: timeout)
        webPush = WebPushSender(client: client, timeout: timeout)
    }

    public func run() async throws {
        if !storage.servesSeveralInstances {
            // One process serves this database: leases held when it last stopped are dead.
            _ = try? await storage.write { writer in try await writer.releasePushLeases() }
        }
        await withGracefulShutdownHandler {
            await drain()
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
        }
        logger.info("\(statistics.summary)")
        try await client.shutdown()
    }

    private func drain() async {
        await withTaskGroup(of: String?.self) { group in
            var inFlight: Set<String> = []
            var ticking = false
            var summarized = ContinuousClock.now
            var lastSummary = statistics.snapshot
            while !stopping.load(ordering: .relaxed), !Task.isCancelled {
                let free = options.concurrency - inFlight.count
                if free > 0 {
                    for push in await claim(limit: free, excluding: Array(inFlight)) {
                        inFlight.insert(push.tokenDigest)
                        group.addTask {
                            await self.deliver(push); return push.tokenDigest
                        }
                    }
                }
                if !ticking {
                    ticking = true
                    group.addTask {
                        try? await Task.sleep(for: self.options.pollInterval); return nil
                    }
                }
                // Wakes when a push finishes (its slot and token are free again) or at the tick.
                switch await group.next() {
                case .some(.some(let token)): inFlight.remove(token)
                case .some(.none): ticking = false
                case .none: break
                }
                if ContinuousClock.now - summarized >= options.summaryInterval {
                    summarized = .now
                    let snapshot = statistics.snapshot
                    if snapshot != lastSummary { logger.info("\(statistics.summary)") }
                    lastSummary = snapshot
                }
            }
            while await group.next() != nil {}
        }
    }

    private func claim(limit: Int, excluding: [String]) async -> [PushDeliveryRow] {
        let now = nowMilliseconds()
        do {
            guard try await storage.read({ reader in try await reader.hasDuePush(nowMilliseconds: now) }) else { return [] }
            return try await storage.write { writer in
                try await writer.claimPushes(
                    holder: self.holder, nowMilliseconds: now, leaseUntil: now + self.options.leaseMilliseconds,
                    limit: limit, excludingTokens: excluding)
            }
        } catch {
            warnOnce("claim", "push: could not read the push queue: \(error)")
            return []
        }
    }

    func deliver(_ push: PushDeliveryRow) async {
        let outcome: PushOutcome
        if push.expiresMilliseconds <= nowMilliseconds() {
            // Name the broken configuration when there is one: a push that expired before its
            // first attempt has no earlier failure to report, and the operator needs the fix.
            var reason = "expired before it could be delivered (\(push.attempts - 1) attempts)"
            if let problem = await configurationProblem(push) { reason += "; \(problem)" }
            outcome = .refused(reason)
        } else {
            outcome = await send(push)
        }
        // Recording the outcome is retried: once a push is accepted, a lost completion would
        // send it again when its lease lapses.
        for attempt in 1...5 {
            do {
                try await settle(push, outcome)
                return
            } catch {
                logger.error("push \(push.id): could not record the outcome (\(outcome)), attempt \(attempt) of 5: \(error)")
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    private func send(_ push: PushDeliveryRow) async -> PushOutcome {
        switch await providerSettings(for: push) {
        case .success(.apns(let deviceToken, let environment, let settings)):
            return await apns.send(push, deviceToken: deviceToken, apnsEnvironment: environment, settings: settings)
        case .success(.webPush(let endpoint, let p256dh, let auth, let settings)):
            return await webPush.send(push, endpoint: endpoint, p256dh: p256dh, auth: auth, settings: settings)
        case .failure(let problem):
            return .misconfigured(problem.reason)
        }
    }

    /// Why the push's provider cannot be used (no settings, or broken ones), if it cannot.
    private func configurationProblem(_ push: PushDeliveryRow) async -> String? {
        if case .failure(let problem) = await providerSettings(for: push) { return problem.reason }
        return nil
    }

    /// The push's address with its provider's settings for the push's container environment,
    /// or why those settings cannot be used: the one lookup sending and expiry reports share.
    private func providerSettings(for push: PushDeliveryRow) async -> Result<ProviderRoute, SettingsProblem> {
        switch push.address {
        case .apns(let deviceToken, let environment):
            return await credentials.apns(push.container, push.environment, storage: storage)
                .map { .apns(deviceToken: deviceToken, environment: environment, settings: $0) }
        case .webPush(let endpoint, let p256dh, let auth):
            return await credentials.vapid(push.container, push.environment, storage: storage)
                .map { .webPush(endpoint: endpoint, p256dh: p256dh, auth: auth, settings: $0) }
        }
    }

    private func settle(_ push: PushDeliveryRow, _ outcome: PushOutcome) async throws {
        let token = String(push.tokenDigest.prefix(12)) + "…"
        let now = nowMilliseconds()
        switch outcome {
        case .delivered:
            let removed = try await storage.write { writer in try await writer.completePush(id: push.id, holder: self.holder) }
            if !removed { logger.warning("push \(push.id) to token \(token): delivered after its lease lapsed; it may arrive twice") }
            statistics.record(token: push.tokenDigest, subscription: push.subscriptionID) { $0.delivered += 1 }
        case .retryWithNewProviderToken:
            // The sender makes a new provider token and retries by itself; should it pass this
            // on, the push waits like any other retry.
            try await settle(push, .retry("APNs: ExpiredProviderToken"))
        case .retry(let reason), .misconfigured(let reason):
            statistics.record(token: push.tokenDigest, subscription: push.subscriptionID) { $0.failed += 1 }
            let next = now + PushBackoff.delayMilliseconds(attempt: push.attempts)
            if next >= push.expiresMilliseconds {
                try await drop(push, reason: "expired after \(push.attempts) attempts; last: \(reason)")
                return
            }
            if case .misconfigured = outcome {
                warnOnce(
                    "\(push.container) \(push.environment.rawValue) \(push.address.transport)",
                    "push: \(push.container) (\(push.environment.rawValue)): \(reason); its pushes wait and are retried")
            } else {
                logger.notice("push \(push.id) to token \(token) (subscription \(push.subscriptionID)): \(reason); attempt \(push.attempts), retried in \((next - now) / 1000) s")
            }
            try await storage.write { writer in
                try await writer.retryPush(
                    id: push.id, holder: self.holder, tokenDigest: push.tokenDigest,
                    nextAttemptMilliseconds: next, error: reason)
            }
        case .tokenGone(let reason):
            let dropped = try await storage.write { writer in
                try await writer.removePushToken(digest: push.tokenDigest, reason: "token removed: \(reason)", nowMilliseconds: now)
            }
            statistics.record(token: push.tokenDigest, subscription: push.subscriptionID) { $0.dropped += 1 }
            logger.notice("push: token \(token) removed (\(reason)); \(dropped) queued pushes dropped")
        case .refused(let reason):
            try await drop(push, reason: reason)
        }
    }

    private func drop(_ push: PushDeliveryRow, reason: String) async throws {
        let drop = PushDropRow(tokenDigest: push.tokenDigest, subscriptionID: push.subscriptionID, reason: reason, atMilliseconds: nowMilliseconds())
        try await storage.write { writer in try await writer.dropPush(id: push.id, drop: drop) }
        statistics.record(token: push.tokenDigest, subscription: push.subscriptionID) { $0.dropped += 1 }
        logger.warning("push \(push.id) to token \(push.tokenDigest.prefix(12))… (subscription \(push.subscriptionID)) dropped: \(reason)")
    }

    /// Logs a message at most once a minute per key: a broken configuration is reported without
    /// one line per push.
    private func warnOnce(_ key: String, _ message: String) {
        let now = ContinuousClock.now
        let due = warned.withLock { seen in
            if let last = seen[key], now - last < .seconds(60) { return false }
            seen[key] = now
            return true
        }
        if due { logger.error("\(message)") }
    }
}

extension Duration {
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

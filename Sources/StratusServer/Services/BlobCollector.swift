import Foundation
import Logging
import ServiceLifecycle
import StratusEngine

/// Collects asset blobs on a schedule: a blob that no record references (after deletes,
/// updates, cascades, zone deletes) and that nobody uploaded or rereferenced for `gracePeriod`
/// is removed from the blob store. A referenced blob is never collected. Also removes upload
/// spool files a crashed server left behind. Of several instances on one database, the one
/// holding the job's lease collects (`Engine.runJobIfDue`).
public struct BlobCollector: Service {
    public let engine: Engine
    public let assets: AssetConfiguration
    /// Seconds an unreferenced blob is kept after its last upload (at least the receipt lifetime).
    public let gracePeriod: Double
    /// Seconds between runs.
    public let interval: Double
    let logger: Logger

    public init(engine: Engine, assets: AssetConfiguration, gracePeriod: Double, interval: Double = 600, logger: Logger) {
        self.engine = engine
        self.assets = assets
        self.gracePeriod = gracePeriod
        self.interval = interval
        self.logger = logger
    }

    /// One pass: returns how many blobs were removed. `now` is when the grace period counts back
    /// from (a later time in tests, instead of waiting).
    @discardableResult
    public func collect(now: Date = .now) async throws -> Int {
        // An upload that has not finished within the upload URL's lifetime never will.
        UploadSpool(folder: assets.spoolFolder).removeAbandoned(olderThan: Double(engine.limits.uploadURLLifetimeSeconds) + 60)
        let blobs = assets.blobs
        let removed = try await engine.collectUnreferencedBlobs(
            gracePeriod: gracePeriod,
            now: milliseconds(since1970: now)
        ) { checksum in
            try await blobs.delete(checksum: checksum)
        }
        if removed > 0 { logger.info("removed \(removed) unreferenced asset blob(s)") }
        return removed
    }

    public func run() async throws {
        // Graceful shutdown cancels the loop; the sleep then throws and the service returns.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await engine.runJobIfDue("collect-blobs", every: interval) { try await self.collect() }
                } catch {
                    logger.error("asset collection failed; will retry: \(error)")
                }
                try await Task.sleep(for: .seconds(min(interval, Engine.jobCheckSeconds)))
            }
        }
    }
}
